import SDLRPC
import SDLRuntime

/// libFuzzer's entry point: the bytes as a BSON document, then as two messages. A thrown
/// `BSONError` or `SDLDecodingError` is the expected outcome for most inputs; a crash, a hang,
/// a memory error or a failed check below is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let document = try BSONDocument(decoding: bytes)
        // What decodes must encode and decode to the same document (array keys aside, which
        // decoding does not check, byte for byte the same input).
        let again = try BSONDocument(decoding: document.encoded())
        precondition(again == document, "the document changed through its bytes")
    } catch {
        precondition((0...size).contains(error.offset), "an error outside the input: \(error)")
    }
    check(Show.self, bytes)
    check(RegisterAppInterfaceResponse.self, bytes)
    return 0
}

/// What the decoder accepts, the writer must reproduce.
private func check<T: SDLCodable>(_ type: T.Type, _ bytes: [UInt8]) {
    let value: T
    do {
        value = try SDLBSON.decode(T.self, from: bytes).value
    } catch {
        precondition(!error.errors.isEmpty, "a decoding error without errors")
        return
    }
    do {
        let bson = try SDLBSON.encode(value, options: SDLEncodingOptions(validate: false))
        let fromBSON = try SDLBSON.decode(T.self, from: bson).value
        precondition(fromBSON == value, "the value changed through BSON")
    } catch {
        preconditionFailure("a decoded value does not read back: \(error)")
    }
}

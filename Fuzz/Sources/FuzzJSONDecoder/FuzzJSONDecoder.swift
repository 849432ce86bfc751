import SDLRPC
import SDLRuntime

/// libFuzzer's entry point: the bytes as the JSON body of two messages, a small one and a large
/// one with nested structs. A thrown `SDLDecodingError` is the expected outcome for most inputs;
/// a crash, a hang, a memory error or a failed check below is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    check(Show.self, bytes)
    check(RegisterAppInterfaceResponse.self, bytes)
    return 0
}

/// What the decoder accepts, the writers must reproduce: the value survives JSON and BSON.
private func check<T: SDLCodable>(_ type: T.Type, _ bytes: [UInt8]) {
    let value: T
    do {
        value = try SDLJSON.decode(T.self, from: bytes).value
    } catch {
        precondition(!error.errors.isEmpty, "a decoding error without errors")
        return
    }
    let unchecked = SDLEncodingOptions(validate: false)
    do {
        let json = try SDLJSON.encode(value, options: unchecked)
        let fromJSON = try SDLJSON.decode(T.self, from: json).value
        precondition(fromJSON == value, "the value changed through JSON")
        let bson = try SDLBSON.encode(value, options: unchecked)
        let fromBSON = try SDLBSON.decode(T.self, from: bson).value
        precondition(fromBSON == value, "the value changed through BSON")
    } catch {
        preconditionFailure("a decoded value does not read back: \(error)")
    }
}

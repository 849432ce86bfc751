import SDLProtocol

/// libFuzzer's entry point: the bytes as a security query from a head unit (the payload of a
/// single frame on the control service). A thrown `SDLSecurityQueryError` is the expected outcome
/// for most inputs; a crash, a hang or a failed check below is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let query = try? SDLSecurityQuery(decoding: bytes) else { return 0 }
    // A decoded query re-encodes to exactly the bytes it came from.
    precondition(query.encoded == bytes, "security query changed on re-encoding")
    precondition(query.json.count + query.binary.count == size - SDLSecurityQuery.headerSize, "parts do not add up")
    _ = query.errorCode?.description
    return 0
}

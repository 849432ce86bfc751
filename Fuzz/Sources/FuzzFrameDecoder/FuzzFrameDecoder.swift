import SDLProtocol

/// libFuzzer's entry point: the bytes as a stream from a head unit, through the frame decoder
/// and the reassembler, then as RPC or control payloads. A thrown `SDLProtocolError` is the
/// expected outcome for most inputs; a crash, a hang, unbounded memory or a failed check below
/// is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Small limits, so a lying length is refused instead of buffered.
    var decoder = SDLFrameDecoder(maxDataSize: 4096)
    var reassembler = SDLReassembler(maxMessageSize: 1 << 16, maxPendingMessages: 4)
    // Fed in two pieces: a split anywhere must not change the outcome.
    let cut = size / 3
    decoder.append(bytes[0..<cut])
    var restAppended = false
    do {
        while true {
            guard let frame = try decoder.nextFrame() else {
                if restAppended { break }
                decoder.append(bytes[cut...])
                restAppended = true
                continue
            }
            // A decoded frame re-encodes to exactly the bytes it came from.
            let again = frame.bytes
            precondition(again.count == frame.header.size + frame.payload.count, "frame size changed")
            if let message = try reassembler.receive(frame) {
                precondition(message.payload.count <= 1 << 16, "a message beyond the limit")
                if message.controlFrameType != nil, message.version >= 5, !message.payload.isEmpty {
                    if let control = try? SDLControlPayload(decoding: message.payload) {
                        precondition((try? SDLControlPayload(decoding: control.bytes)) == control, "control payload changed")
                    }
                } else if message.controlFrameType == nil, let rpc = try? SDLRPCPayload(decoding: message.payload) {
                    precondition((try? SDLRPCPayload(decoding: rpc.bytes)) == rpc, "RPC payload changed")
                }
            }
        }
    } catch {
        // Typed protocol errors end the session; nothing more to check.
    }
    precondition(reassembler.pendingCount <= 4, "more pending messages than allowed")
    return 0
}

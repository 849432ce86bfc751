import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The baseline of the loopback benchmarks: a plain TCP socket pair on 127.0.0.1, no framing.

/// Writes `payload` through a connected loopback TCP pair in `writeSize` writes; returns the time
/// until the reader has every byte. (Parameters, not globals: top-level globals are main-actor
/// state, and reading them from the reader thread would cost an isolation check each time.)
public func rawLoopback(_ payload: [UInt8], writeSize: Int = 128 * 1024) -> Duration {
    let size = payload.count
    let clock = ContinuousClock()
    let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            _ = bind(server, socketAddress, length)
            _ = listen(server, 1)
            _ = getsockname(server, socketAddress, &length)
        }
    }
    let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = connect(client, $0, length) }
    }
    let accepted = accept(server, nil, nil)
    let done = DispatchSemaphore(value: 0)
    let reader = Thread {
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var received = 0
        while received < size {
            let count = buffer.withUnsafeMutableBytes { read(accepted, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            received += count
        }
        done.signal()
    }
    let began = clock.now
    reader.start()
    payload.withUnsafeBytes { bytes in
        var offset = 0
        while offset < size {
            let count = write(client, bytes.baseAddress! + offset, min(writeSize, size - offset))
            if count <= 0 { break }
            offset += count
        }
    }
    done.wait()
    let elapsed = clock.now - began
    close(client)
    close(accepted)
    close(server)
    return elapsed
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

enum StandardError {
    static func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { raw in
                #if canImport(Darwin)
                    Darwin.write(2, raw.baseAddress, raw.count)
                #else
                    Glibc.write(2, raw.baseAddress, raw.count)
                #endif
            }
            if written <= 0 { return }
            bytes = bytes.dropFirst(written)
        }
    }
}

enum Environment {
    static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

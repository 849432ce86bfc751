#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading and writing whole files with the C library, so the spec and generator modules do
/// not pull Foundation into the build plugin's tool.
package enum FileBytes {
    package struct IOError: Error, CustomStringConvertible, Sendable {
        package var path: String
        package var reason: String
        package var description: String { "\(path): \(reason)" }
    }

    private static func failure(_ path: String) -> IOError {
        IOError(path: path, reason: String(cString: strerror(errno)))
    }

    package static func read(_ path: String) throws(IOError) -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw failure(path) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count > 0 { bytes.append(contentsOf: chunk[0..<count]) }
            if count < chunk.count {
                if ferror(file) != 0 { throw failure(path) }
                break
            }
        }
        return bytes
    }

    /// Writes atomically: a temporary file beside the target, then rename.
    package static func write(_ bytes: [UInt8], to path: String) throws(IOError) {
        let temporary = "\(path).tmp-\(getpid())"
        guard let file = fopen(temporary, "wb") else { throw failure(temporary) }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file)
        guard written == bytes.count, closed == 0 else {
            let error = failure(temporary)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = failure(path)
            unlink(temporary)
            throw error
        }
    }

    package static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Creates `path` and its parents.
    package static func createDirectory(_ path: String) throws(IOError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if !isDirectory(prefix), mkdir(prefix, 0o755) != 0, errno != EEXIST {
                throw failure(prefix)
            }
            prefix += "/"
        }
    }

    /// File names (not paths) directly inside `directory`.
    package static func list(_ directory: String) throws(IOError) -> [String] {
        guard let handle = opendir(directory) else { throw failure(directory) }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    package static func remove(_ path: String) throws(IOError) {
        guard unlink(path) == 0 else { throw failure(path) }
    }
}

import SDLProtocol
import SDLRPC
import SDLRuntime

/// One app's files on the head unit, as SDL Core keeps them: chunks of a PutFile (`offset`,
/// `length`) are assembled into one file that is listed once complete, each chunk's `crc` is
/// checked, and `spaceAvailable` counts down from a quota.
struct FileStore: Sendable {
    struct File: Sendable {
        var bytes: [UInt8]
        var type: FileType
        var isPersistent: Bool
        /// The size the first chunk announced; complete when `bytes.count` reaches it.
        var expectedSize: Int
        var isComplete: Bool { bytes.count >= expectedSize }
    }

    var files: [String: File] = [:]
    let quota: Int

    init(quota: Int) {
        self.quota = quota
    }

    var usedBytes: Int { files.values.reduce(0) { $0 + max($1.bytes.count, $1.expectedSize) } }
    var spaceAvailable: Int { max(0, quota - usedBytes) }

    /// Complete files, by name.
    var names: [String] { files.filter(\.value.isComplete).keys.sorted() }

    func exists(_ name: String) -> Bool { files[name]?.isComplete == true }

    func bytes(of name: String) -> [UInt8]? {
        guard let file = files[name], file.isComplete else { return nil }
        return file.bytes
    }

    enum PutResult: Sendable {
        case stored(complete: Bool)
        case failed(SDLResult, String)
    }

    /// Stores one PutFile request's bulk data.
    mutating func put(_ request: PutFile, data: [UInt8]) -> PutResult {
        if let crc = request.crc, UInt32(truncatingIfNeeded: crc) != CRC32.checksum(data) {
            return .failed(.corruptedData, "CRC Check on file failed. File upload has been rejected.")
        }
        let offset = request.offset ?? 0
        let name = request.syncFileName
        if offset == 0 {
            // A new file (or a new version of one): the first chunk's `length` is the whole size.
            let expected = max(request.length ?? data.count, data.count)
            let previous = files[name].map { max($0.bytes.count, $0.expectedSize) } ?? 0
            guard usedBytes - previous + expected <= quota else {
                return .failed(.outOfMemory, "Not enough space on the head unit")
            }
            files[name] = File(bytes: data, type: request.fileType, isPersistent: request.persistentFile ?? false, expectedSize: expected)
            return .stored(complete: files[name]!.isComplete)
        }
        guard var file = files[name], !file.isComplete else {
            return .failed(.invalidData, "offset \(offset) continues no file being uploaded")
        }
        guard offset == file.bytes.count else {
            return .failed(.invalidData, "offset \(offset) does not follow the \(file.bytes.count) bytes received")
        }
        guard offset + data.count <= file.expectedSize else {
            return .failed(.invalidData, "the chunk ends past the file's announced \(file.expectedSize) bytes")
        }
        file.bytes += data
        files[name] = file
        return .stored(complete: file.isComplete)
    }

    mutating func delete(_ name: String) -> Bool {
        files.removeValue(forKey: name) != nil
    }

    /// What stays when the app goes away: its persistent files.
    mutating func appGone() {
        files = files.filter { $0.value.isPersistent && $0.value.isComplete }
    }
}

/// CRC-32 (IEEE 802.3, as zlib computes it): what PutFile's `crc` carries.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

/// PutFile, ListFiles, DeleteFile and SetAppIcon.
extension SDLHeadUnitEmulator {
    func putFile(_ request: PutFile, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        var store = fileStore(of: appID)
        let result = store.put(request, data: rpc.bulkData)
        fileStores[appID] = store
        let space: [SDLJSONValue.Member] = [.init(key: "spaceAvailable", value: .integer(store.spaceAvailable))]
        switch result {
        case .failed(let code, let info):
            return (.failure(code, info, extra: space), [])
        case .stored(let complete):
            return (.success(info: complete ? "File was downloaded" : nil, extra: space), complete ? [hashChange(of: appID)] : [])
        }
    }

    func listFiles(appID: String) -> (Reply, [Effect]) {
        let store = fileStore(of: appID)
        // SDL Core always sends the array, empty when the app has no files.
        var extra: [SDLJSONValue.Member] = [.init(key: "filenames", value: .array(store.names.map(SDLJSONValue.string)))]
        extra.append(.init(key: "spaceAvailable", value: .integer(store.spaceAvailable)))
        return (.success(extra: extra), [])
    }

    func deleteFile(_ request: DeleteFile, appID: String) -> (Reply, [Effect]) {
        var store = fileStore(of: appID)
        guard store.delete(request.syncFileName) else {
            return (.failure(.rejected, "no file named \(request.syncFileName)", extra: [.init(key: "spaceAvailable", value: .integer(store.spaceAvailable))]), [])
        }
        fileStores[appID] = store
        return (.success(extra: [.init(key: "spaceAvailable", value: .integer(store.spaceAvailable))]), [hashChange(of: appID)])
    }

    func setAppIcon(_ request: SetAppIcon, appID: String) -> (Reply, [Effect]) {
        guard fileStore(of: appID).exists(request.syncFileName) else {
            return (.failure(.invalidData, "no file named \(request.syncFileName)"), [])
        }
        return (.success(), [])
    }

    func fileStore(of appID: String) -> FileStore {
        fileStores[appID] ?? FileStore(quota: configuration.fileQuota)
    }

    /// The app's complete files.
    public func files(appID: String) -> [String] {
        fileStore(of: appID).names
    }

    /// A file's bytes, nil when the app has no such complete file.
    public func file(appID: String, name: String) -> [UInt8]? {
        fileStore(of: appID).bytes(of: name)
    }
}

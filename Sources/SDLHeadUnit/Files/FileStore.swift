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
        if let crc = request.crc, UInt32(truncatingIfNeeded: crc) != SDLCRC32.checksum(data) {
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
            // A new version of a file reuses the old one's storage, as a file system rewrites
            // its blocks; room for the whole file is taken at once. A new file sent whole keeps
            // the received bytes as they are (a fleet of emulated vehicles stores thousands).
            var bytes = files.removeValue(forKey: name)?.bytes ?? []
            if bytes.capacity == 0, data.count == expected {
                bytes = data
            } else {
                bytes.removeAll(keepingCapacity: true)
                bytes.reserveCapacity(expected)
                bytes.append(contentsOf: data)
            }
            files[name] = File(bytes: bytes, type: request.fileType, isPersistent: request.persistentFile ?? false, expectedSize: expected)
            return .stored(complete: files[name]!.isComplete)
        }
        // Sizes only: a copy of the file held here would make the append below copy its bytes.
        guard let (received, expected) = files[name].map({ ($0.bytes.count, $0.expectedSize) }), received < expected else {
            return .failed(.invalidData, "offset \(offset) continues no file being uploaded")
        }
        guard offset == received else {
            return .failed(.invalidData, "offset \(offset) does not follow the \(received) bytes received")
        }
        guard offset + data.count <= expected else {
            return .failed(.invalidData, "the chunk ends past the file's announced \(expected) bytes")
        }
        // In place: a copy of the file's bytes per chunk would make uploads quadratic.
        files[name]!.bytes.append(contentsOf: data)
        return .stored(complete: files[name]!.isComplete)
    }

    mutating func delete(_ name: String) -> Bool {
        files.removeValue(forKey: name) != nil
    }

    /// What stays when the app goes away: its persistent files, a partly uploaded one too (SDL
    /// Core keeps what it wrote to disk, and takes a chunk whose offset is the size it holds).
    mutating func appGone() {
        files = files.filter { $0.value.isPersistent }
    }
}

/// The files area: each app's files, the icons apps set and the faults an operator injected.
struct FileState: Sendable {
    /// Files by app ID; persistent ones outlive the app's registration, as in SDL Core.
    var stores: [String: FileStore] = [:]
    /// Icons apps set with SetAppIcon, by app ID: SDL Core keeps them across registrations.
    var icons: [String: [UInt8]] = [:]
    /// PutFile faults an operator asked for, by app ID.
    var faults: [String: FileFaultPlan] = [:]
    /// Bytes each app may store.
    let quota: Int

    func store(of appID: String) -> FileStore {
        stores[appID] ?? FileStore(quota: quota)
    }

    /// The fault for the app's PutFile now, if its turn has come (the plan is used up then).
    mutating func takeFault(for appID: String) -> SDLFileFault? {
        guard let plan = faults[appID] else { return nil }
        if plan.remaining > 1 {
            faults[appID]?.remaining -= 1
            return nil
        }
        faults[appID] = nil
        return plan.fault
    }

    /// A complete file's bytes, from `shared` when another store holds the same. `crc` is the
    /// file's CRC-32 when its one PutFile carried it (and it was checked).
    mutating func share(_ name: String, of appID: String, in shared: SDLSharedFileBytes, crc: Int?) {
        guard let bytes = stores[appID]?.files[name]?.bytes else { return }
        let held = shared.shared(bytes, crc: crc.map { UInt32(truncatingIfNeeded: $0) })
        stores[appID]?.files[name]?.bytes = held
    }

    /// Stores a PutFile chunk in place (see `FileStore.put`).
    mutating func put(_ request: PutFile, data: [UInt8], appID: String) -> FileStore.PutResult {
        stores[appID, default: FileStore(quota: quota)].put(request, data: data)
    }
}

/// PutFile, ListFiles, DeleteFile and SetAppIcon.
extension SDLHeadUnitEmulator {
    /// SDL Core refuses a file name that climbs out of the app's folder.
    static func isUnsafe(_ name: String) -> Bool { name.contains("../") }

    func putFile(_ request: PutFile, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        if Self.isUnsafe(request.syncFileName) { return (.failure(.invalidData, nil), []) }
        var data = rpc.bulkData
        switch fileState.takeFault(for: appID) {
        case .answer(let code)?: return (.failure(code, "fault injected by the emulator's operator"), [])
        case .corrupt?: if !data.isEmpty { data[0] ^= 0xFF }
        case .noAnswer?: return (.deferred, [])
        case .disconnect?: return (.deferred, [.disconnect(appID: appID, endService: false, unregistered: false)])
        case nil: break
        }
        let result = fileState.put(request, data: data, appID: appID)
        let store = fileStore(of: appID)
        let space: [SDLJSONValue.Member] = [.init(key: "spaceAvailable", value: .integer(store.spaceAvailable))]
        switch result {
        case .failed(let code, let info):
            return (.failure(code, info, extra: space), [])
        case .stored(let complete):
            if complete, let shared = configuration.sharedFileBytes {
                fileState.share(request.syncFileName, of: appID, in: shared, crc: (request.offset ?? 0) == 0 ? request.crc : nil)
            }
            // No OnHashChange: SDL Core sends none after PutFile.
            return (.success(info: complete ? "File was downloaded" : nil, extra: space), [])
        }
    }

    func listFiles(appID: String) -> (Reply, [Effect]) {
        let store = fileStore(of: appID)
        // SDL Core always sends the array, empty when the app has no files.
        var extra: [SDLJSONValue.Member] = [.init(key: "filenames", value: .array(store.names.map(SDLJSONValue.string)))]
        extra.append(.init(key: "spaceAvailable", value: .integer(store.spaceAvailable)))
        return (.success(extra: extra), [])
    }

    /// GetFile: the file's bytes as the response's bulk data, with their `crc`; `offset`,
    /// `length` and `fileType` echoed when the app sent them. With `appServiceId` (RPC 6.0) the
    /// file comes from that service's provider's files, as SDL Core does for a consumer asking
    /// for a provider's artwork.
    func getFile(_ request: GetFile, appID: String) -> (Reply, [Effect]) {
        if Self.isUnsafe(request.fileName) { return (.failure(.invalidData, nil), []) }
        var owner = appID
        if let serviceID = request.appServiceId {
            guard let provider = appServices.services[serviceID]?.providerAppID else {
                return (.failure(.invalidId, "no app service with ID \(serviceID)"), [])
            }
            owner = provider
        }
        guard let bytes = fileStore(of: owner).bytes(of: request.fileName) else { return (.failure(.fileNotFound, nil), []) }
        let start = min(max(request.offset ?? 0, 0), bytes.count)
        let end = request.length.map { min(bytes.count, start + max($0, 0)) } ?? bytes.count
        let data = Array(bytes[start..<end])
        var fields: [SDLJSONValue.Member] = []
        if let offset = request.offset { fields.append(.init(key: "offset", value: .integer(offset))) }
        if let length = request.length { fields.append(.init(key: "length", value: .integer(length))) }
        if let type = request.fileType { fields.append(.init(key: "fileType", value: .string(type.rawValue))) }
        fields.append(.init(key: "crc", value: .integer(Int(SDLCRC32.checksum(data)))))
        var reply = Reply.success(info: "File uploaded", extra: fields)
        reply.bulkData = data
        return (reply, [])
    }

    func deleteFile(_ request: DeleteFile, appID: String) -> (Reply, [Effect]) {
        if Self.isUnsafe(request.syncFileName) { return (.failure(.invalidData, nil), []) }
        var store = fileStore(of: appID)
        guard store.delete(request.syncFileName) else {
            return (
                .failure(.rejected, "no file named \(request.syncFileName)", extra: [.init(key: "spaceAvailable", value: .integer(store.spaceAvailable))]), []
            )
        }
        fileState.stores[appID] = store
        return (.success(extra: [.init(key: "spaceAvailable", value: .integer(store.spaceAvailable))]), [])
    }

    func setAppIcon(_ request: SetAppIcon, appID: String) -> (Reply, [Effect]) {
        guard let icon = fileStore(of: appID).bytes(of: request.syncFileName) else {
            return (.failure(.invalidData, "no file named \(request.syncFileName)"), [])
        }
        fileState.icons[appID] = icon
        return (.success(), [])
    }

    /// Bytes held of a file, complete or still being uploaded; nil when there is none.
    public func storedBytes(appID: String, name: String) -> Int? {
        fileStore(of: appID).files[name]?.bytes.count
    }

    /// Asks a (cloud) app for its icon as SDL Core does when its policy names an icon URL:
    /// OnSystemRequest(ICON_URL); the app answers with SystemRequest carrying the bytes.
    public func requestIcon(appID: String, url: String) async throws(SDLHeadUnitControlError) {
        guard apps[appID] != nil else { throw .unknownApp(appID) }
        await perform([notification(OnSystemRequest(requestType: .iconUrl, url: url), to: appID)])
    }

    func systemRequest(_ request: SystemRequest, rpc: SDLRPCPayload, appID: String) -> (Reply, [Effect]) {
        if request.requestType == .proprietary { return applyPolicyUpdate(rpc.bulkData, appID: appID) }
        // SDL Core reads QUERY_APPS' data as the JSON list of cloud and web apps: none, or no
        // JSON, is INVALID_DATA.
        if request.requestType == .queryApps {
            guard !rpc.bulkData.isEmpty else { return (.failure(.invalidData, "QUERY_APPS needs its data"), []) }
            guard (try? SDLJSONValue(parsing: rpc.bulkData)) != nil else { return (.failure(.invalidData, "QUERY_APPS data is not JSON"), []) }
        }
        if request.requestType == .iconUrl {
            guard !rpc.bulkData.isEmpty else { return (.failure(.invalidData, "the icon has no bytes"), []) }
            fileState.icons[appID] = rpc.bulkData
        }
        return (.success(), [])
    }

    /// The icon the app set, kept across its registrations.
    public func appIcon(appID: String) -> [UInt8]? {
        fileState.icons[appID]
    }

    /// Makes the `chunk`-th PutFile from now (1 = the next) of the app fail as `fault` says:
    /// for tests of an app's honesty about what the head unit holds.
    public func injectFileFault(_ fault: SDLFileFault, appID: String, onChunk chunk: Int = 1) {
        fileState.faults[appID] = FileFaultPlan(fault: fault, remaining: max(1, chunk))
    }

    func fileStore(of appID: String) -> FileStore {
        fileState.store(of: appID)
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

/// How the emulator spoils one PutFile (`injectFileFault`).
public enum SDLFileFault: Sendable, Hashable {
    /// Answered `success=false` with this result code; nothing stored.
    case answer(SDLResult)
    /// The bytes arrive damaged (the first one flipped): with a `crc` the check fails
    /// (CORRUPTED_DATA); without one the damaged bytes are stored.
    case corrupt
    /// Never answered.
    case noAnswer
    /// The connection drops instead of an answer.
    case disconnect
}

struct FileFaultPlan: Sendable {
    var fault: SDLFileFault
    var remaining: Int
}

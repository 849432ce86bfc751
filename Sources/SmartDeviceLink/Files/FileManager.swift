import DequeModule
import Logging
import SDLProtocol
import SDLRPC
import SDLRuntime

/// The app's files on the head unit (`manager.files`): what is there, how much space is left,
/// and uploads that fit the negotiated MTU, pipeline their chunks, survive drops and never
/// report bytes the head unit does not hold.
///
/// At start-up ListFiles fills ``remoteFileNames`` and ``bytesAvailable`` (a refused ListFiles
/// does not keep the manager from Ready); every PutFile and DeleteFile response updates them.
public actor SDLFileManager: SDLSubManager {
    /// How uploads behave.
    public struct Configuration: Sendable {
        /// Extra attempts after a failed upload of an artwork, and of any other file (0: none).
        /// Each attempt resumes from the bytes the head unit confirmed.
        public var artworkRetryCount = 1
        /// Extra attempts after a failed upload of a file that is not an artwork (0: none).
        public var fileRetryCount = 1
        /// Chunks of one upload sent before the first of them is answered.
        public var maxChunksInFlight = 8

        /// The defaults: one retry for artworks and for other files, 8 chunks in flight.
        public init() {}
    }

    private let configuration: Configuration
    private let logger: Logger
    private var client: SDLRPCClient?
    private var mtu = SDLProtocolVersion.latest.defaultMTU
    private var rpcVersion = MobileAPI.version
    /// Confirmed prefixes of interrupted uploads, by file name: a retry of the same bytes
    /// resumes there (falling back to the start if the head unit no longer has them).
    private var partialUploads: [String: PartialUpload] = [:]

    /// The names of the app's complete files on the head unit.
    public private(set) var remoteFileNames: Set<String> = []
    /// Space left for the app's files, from the latest ListFiles, PutFile or DeleteFile answer.
    public private(set) var bytesAvailable: Int?

    init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Whether the head unit already has a file of this name.
    public func hasFile(named name: String) -> Bool { remoteFileNames.contains(name) }

    // MARK: Uploading

    /// Uploads `file`; `progress` hears the bytes the head unit confirmed. A name already on the
    /// head unit is an ``SDLError`` of code `invalidArgument` (nothing is sent) unless `overwrite`.
    /// Cancelling the calling task stops the remaining chunks.
    @discardableResult
    public func upload(_ file: SDLFile, progress: (@Sendable (SDLUploadProgress) -> Void)? = nil) async throws -> SDLUploadOutcome {
        let retries = configuration.fileRetryCount
        // On a task of its own: the caller's task (a session's handler, which lives as long as
        // the session) does not keep the upload's deep frames.
        return try await onOwnTask {
            do throws(SDLFileError) {
                return try await self.upload(file, retries: retries, skipIfPresent: false, progress: progress)
            } catch {
                throw SDLError(error)
            }
        }
    }

    /// Uploads an artwork unless the head unit has it already (its name comes from its
    /// content) or it is a static icon; returns how it went.
    @discardableResult
    public func upload(_ artwork: SDLArtwork, progress: (@Sendable (SDLUploadProgress) -> Void)? = nil) async throws -> SDLUploadOutcome {
        do throws(SDLFileError) {
            return try await uploadArtwork(artwork, progress: progress)
        } catch {
            throw SDLError(error)
        }
    }

    func uploadArtwork(_ artwork: SDLArtwork, progress: (@Sendable (SDLUploadProgress) -> Void)? = nil) async throws(SDLFileError) -> SDLUploadOutcome {
        guard let file = artwork.file else { return .staticIcon }
        return try await upload(file, retries: configuration.artworkRetryCount, skipIfPresent: !file.overwrite, progress: progress)
    }

    /// `upload(_:progress:)` with the detailed error, for the other sub-managers.
    func uploadFile(_ file: SDLFile) async throws(SDLFileError) -> SDLUploadOutcome {
        try await upload(file, retries: configuration.fileRetryCount, skipIfPresent: false, progress: nil)
    }

    /// The same upload with its progress as a stream: iterate `progress`, then await `outcome()`;
    /// `cancel()` stops the remaining chunks.
    public nonisolated func startUpload(_ file: SDLFile) -> SDLUpload {
        let (stream, sink) = AsyncStream<SDLUploadProgress>.makeStream(bufferingPolicy: .bufferingNewest(64))
        // Unstructured by design: the app asked for a handle (progress, outcome, cancel) to an
        // upload that runs on its behalf, like a task it would start itself.
        let task = Task { () async -> Result<SDLUploadOutcome, SDLError> in
            defer { sink.finish() }
            do throws(SDLFileError) {
                return .success(try await self.upload(file, retries: self.configuration.fileRetryCount, skipIfPresent: false) { sink.yield($0) })
            } catch {
                return .failure(SDLError(error))
            }
        }
        return SDLUpload(progress: stream, task: task)
    }

    /// Uploads several files one after the other with one result per file and progress over
    /// all their bytes; a failure stops the rest only with `stopOnFailure` (they fail with
    /// code `cancelled`, unsent; the message names the file and the bytes confirmed: none).
    public func upload(
        _ files: [SDLFile], stopOnFailure: Bool = false, progress: (@Sendable (SDLUploadProgress) -> Void)? = nil
    ) async -> [Result<SDLUploadOutcome, SDLError>] {
        var sizes: [Int] = []
        for file in files {
            sizes.append((try? file.load().count) ?? 0)
        }
        let total = sizes.reduce(0, +)
        var done = 0
        var results: [Result<SDLUploadOutcome, SDLError>] = []
        var stopped = false
        for (file, size) in zip(files, sizes) {
            guard !stopped else {
                results.append(.failure(SDLError(SDLFileError.cancelled(name: file.name, confirmedBytes: 0, totalBytes: size))))
                continue
            }
            let before = done
            do throws(SDLFileError) {
                let outcome = try await upload(file, retries: configuration.fileRetryCount, skipIfPresent: false) { step in
                    progress?(SDLUploadProgress(bytesConfirmed: before + step.bytesConfirmed, totalBytes: total))
                }
                results.append(.success(outcome))
            } catch {
                results.append(.failure(SDLError(error)))
                if stopOnFailure { stopped = true }
            }
            done = before + size
            progress?(SDLUploadProgress(bytesConfirmed: done, totalBytes: total))
        }
        return results
    }

    private func upload(
        _ file: SDLFile, retries: Int, skipIfPresent: Bool, progress: (@Sendable (SDLUploadProgress) -> Void)?
    ) async throws(SDLFileError) -> SDLUploadOutcome {
        let bytes = try file.load()
        if remoteFileNames.contains(file.name), !file.overwrite {
            if skipIfPresent { return .alreadyOnHeadUnit }
            throw .cannotOverwrite(name: file.name)
        }
        var attempt = 0
        while true {
            do throws(SDLFileError) {
                try await transfer(file, bytes: bytes, progress: progress)
                return .uploaded(bytes: bytes.count)
            } catch {
                guard attempt < retries, error.isWorthRetrying else { throw error }
                attempt += 1
                logger.notice("upload failed; retrying", metadata: ["file": "\(file.name)", "error": "\(error)", "attempt": "\(attempt)"])
            }
        }
    }

    /// One attempt: from the confirmed prefix of an earlier one when the bytes are the same.
    private func transfer(_ file: SDLFile, bytes: [UInt8], progress: (@Sendable (SDLUploadProgress) -> Void)?) async throws(SDLFileError) {
        let total = bytes.count
        var start = 0
        // The whole file's checksum only where an earlier attempt left a partial file: the
        // common upload passes over its bytes once, for the chunks' CRCs.
        if let partial = partialUploads[file.name], partial.totalBytes == total, partial.fingerprint == SDLCRC32.checksum(bytes) {
            start = partial.confirmedBytes
        }
        do throws(SDLFileError) {
            try await send(file, bytes: bytes, from: start, progress: progress)
        } catch .failed(let name, let confirmed, let totalBytes, .refused(.invalidData, _)) where start > 0 && confirmed == start {
            // The head unit no longer holds the partial file: from the start.
            logger.info("the head unit lost the partial file; uploading from the start", metadata: ["file": "\(name)", "offset": "\(start)"])
            partialUploads[file.name] = nil
            _ = totalBytes
            try await send(file, bytes: bytes, from: 0, progress: progress)
        }
    }

    /// Sends the chunks from `start` on, `maxChunksInFlight` at a time, in order on the wire.
    private func send(
        _ file: SDLFile, bytes: [UInt8], from start: Int, progress: (@Sendable (SDLUploadProgress) -> Void)?
    ) async throws(SDLFileError) {
        guard let client else { throw .notConnected(name: file.name) }
        let total = bytes.count
        let chunkSize = chunkSize(for: file, totalBytes: total)
        var state = UploadState(confirmed: start, totalBytes: total)
        progress?(SDLUploadProgress(bytesConfirmed: start, totalBytes: total))
        var offset = start
        repeat {
            if Task.isCancelled, state.failure == nil { state.failure = .cancelled }
            if state.failure != nil { break }
            let length = min(chunkSize, total - offset)
            let chunk = bytes[offset..<offset + length]
            let request = PutFile(
                syncFileName: file.name, fileType: file.type, persistentFile: file.isPersistent, systemFile: false,
                offset: offset, length: offset == 0 ? total : length,
                crc: rpcVersion >= .version(5, 0) ? Int(SDLCRC32.checksum(chunk)) : nil)
            do {
                state.inFlight.append(UploadState.Chunk(offset: offset, length: length, response: try await client.pipeline(request, bulkData: Array(chunk))))
            } catch {
                state.failure = SDLUploadFailure(error)
                break
            }
            offset += length
            // A resumed upload waits for its first chunk: if the head unit no longer holds the
            // partial file, nothing more is sent at offsets it cannot take.
            let probing = start > 0 && offset == start + length
            if probing || state.inFlight.count >= configuration.maxChunksInFlight { await settleOldest(&state, progress: progress) }
        } while offset < total
        while !state.inFlight.isEmpty { await settleOldest(&state, progress: progress) }

        if let failure = state.failure {
            // What the head unit confirmed stays for a retry of the same bytes.
            let confirmed = state.confirmed
            partialUploads[file.name] = confirmed > 0 ? PartialUpload(totalBytes: total, fingerprint: SDLCRC32.checksum(bytes), confirmedBytes: confirmed) : nil
            if case .cancelled = failure { throw .cancelled(name: file.name, confirmedBytes: confirmed, totalBytes: total) }
            throw .failed(name: file.name, confirmedBytes: confirmed, totalBytes: total, reason: failure)
        }
        partialUploads[file.name] = nil
        remoteFileNames.insert(file.name)
    }

    /// Awaits the oldest chunk in flight; the confirmed prefix grows only over answered chunks
    /// that follow it, so nothing after a failure counts.
    private func settleOldest(_ state: inout UploadState, progress: (@Sendable (SDLUploadProgress) -> Void)?) async {
        guard let chunk = state.inFlight.popFirst() else { return }
        do {
            let response = try await chunk.response.value()
            if let space = response.spaceAvailable { bytesAvailable = space }
            if response.success {
                if state.failure == nil, chunk.offset == state.confirmed {
                    state.confirmed += chunk.length
                    progress?(SDLUploadProgress(bytesConfirmed: state.confirmed, totalBytes: state.totalBytes))
                }
            } else if state.failure == nil {
                state.failure = .refused(response.resultCode, info: response.info)
            }
        } catch {
            if state.failure == nil { state.failure = SDLUploadFailure(error) }
        }
    }

    /// The data bytes that fit one frame of the negotiated MTU next to the binary header and
    /// the largest JSON this file's PutFile can have.
    func chunkSize(for file: SDLFile, totalBytes: Int) -> Int {
        let worstCase = PutFile(
            syncFileName: file.name, fileType: file.type, persistentFile: file.isPersistent, systemFile: false,
            offset: totalBytes, length: totalBytes, crc: Int(UInt32.max))
        let json = (try? SDLJSON.encode(worstCase).count) ?? 1_024
        return max(1, mtu - SDLRPCPayload.binaryHeaderSize - json)
    }

    // MARK: Deleting and listing

    /// Deletes a file from the head unit.
    public func delete(_ name: String) async throws {
        do throws(SDLFileError) {
            try await deleteFile(name)
        } catch {
            throw SDLError(error)
        }
    }

    private func deleteFile(_ name: String) async throws(SDLFileError) {
        guard let client else { throw .notConnected(name: name) }
        let response: DeleteFileResponse
        do {
            response = try await client.send(DeleteFile(syncFileName: name))
        } catch {
            throw .failed(name: name, confirmedBytes: 0, totalBytes: 0, reason: SDLUploadFailure(error))
        }
        if let space = response.spaceAvailable { bytesAvailable = space }
        guard response.success else {
            throw .failed(name: name, confirmedBytes: 0, totalBytes: 0, reason: .refused(response.resultCode, info: response.info))
        }
        remoteFileNames.remove(name)
    }

    /// Deletes several files; one result per name, in order.
    public func delete(_ names: [String]) async -> [Result<Void, SDLError>] {
        var results: [Result<Void, SDLError>] = []
        for name in names {
            do throws(SDLFileError) {
                try await deleteFile(name)
                results.append(.success(()))
            } catch {
                results.append(.failure(SDLError(error)))
            }
        }
        return results
    }

    /// Asks the head unit again (ListFiles).
    @discardableResult
    public func refresh() async throws -> Set<String> {
        do throws(SDLFileError) {
            return try await listFiles()
        } catch {
            throw SDLError(error)
        }
    }

    private func listFiles() async throws(SDLFileError) -> Set<String> {
        guard let client else { throw .notConnected(name: "") }
        let response: ListFilesResponse
        do {
            response = try await client.send(ListFiles())
        } catch {
            throw .failed(name: "", confirmedBytes: 0, totalBytes: 0, reason: SDLUploadFailure(error))
        }
        guard response.success else {
            throw .failed(name: "", confirmedBytes: 0, totalBytes: 0, reason: .refused(response.resultCode, info: response.info))
        }
        remoteFileNames = Set(response.filenames ?? [])
        if let space = response.spaceAvailable { bytesAvailable = space }
        return remoteFileNames
    }

    // MARK: Connections

    /// A new registration: the frame size and RPC version to upload with, and the head unit's
    /// list of the app's files (a refusal is logged; the app may upload again).
    func connected(client: SDLRPCClient, mtu: Int, rpcVersion: SDLSpecVersion) async {
        self.client = client
        self.mtu = mtu
        self.rpcVersion = rpcVersion
        do throws(SDLFileError) {
            _ = try await listFiles()
        } catch {
            logger.notice("ListFiles failed; the file manager starts without the head unit's list", metadata: ["error": "\(error)"])
            remoteFileNames = []
        }
    }

    func connectionEnded() {
        client = nil
    }
}

/// How an upload ended well.
public enum SDLUploadOutcome: Sendable, Hashable {
    /// The head unit now holds the file; `bytes` were sent.
    case uploaded(bytes: Int)
    /// An artwork of the same content was there already: nothing sent.
    case alreadyOnHeadUnit
    /// A built-in icon: nothing to upload.
    case staticIcon
}

/// Bytes the head unit confirmed so far.
public struct SDLUploadProgress: Sendable, Hashable {
    /// Bytes the head unit has confirmed receiving.
    public var bytesConfirmed: Int
    /// The file's size.
    public var totalBytes: Int
    /// The confirmed share of the file, from 0 to 1 (1 for an empty file).
    public var fraction: Double { totalBytes == 0 ? 1 : Double(bytesConfirmed) / Double(totalBytes) }
}

/// An upload running on its own: its progress as a stream, its outcome when it ends.
public struct SDLUpload: Sendable {
    /// The confirmed bytes after each answered chunk; ends when the upload ends.
    public let progress: AsyncStream<SDLUploadProgress>
    let task: Task<Result<SDLUploadOutcome, SDLError>, Never>

    /// How the upload ended: uploaded, or skipped because the head unit already had the file.
    @discardableResult
    public func outcome() async throws -> SDLUploadOutcome {
        try await task.value.get()
    }

    /// Stops the remaining chunks; the outcome is an ``SDLError`` of code `cancelled`, whose
    /// message says how many bytes the head unit had confirmed.
    public func cancel() { task.cancel() }
}

/// Why a file operation failed; every failure of an upload says how many bytes the head unit
/// confirmed (and nothing more is claimed).
package enum SDLFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A file of this name is on the head unit and the upload did not ask to overwrite it.
    case cannotOverwrite(name: String)
    /// The file's local path could not be read; nothing was sent.
    case unreadable(path: String)
    /// No connection to a head unit.
    case notConnected(name: String)
    /// The upload stopped: `reason` says why; `confirmedBytes` of `totalBytes` reached the head
    /// unit.
    case failed(name: String, confirmedBytes: Int, totalBytes: Int, reason: SDLUploadFailure)
    /// The upload was cancelled after `confirmedBytes` of `totalBytes` reached the head unit.
    case cancelled(name: String, confirmedBytes: Int, totalBytes: Int)

    /// A readable explanation of the error, for logs.
    public var description: String {
        switch self {
        case .cannotOverwrite(let name): "\(name) is on the head unit already; set overwrite to replace it"
        case .unreadable(let path): "cannot read \(path)"
        case .notConnected(let name): "\(name): not connected to a head unit"
        case .failed(let name, let confirmed, let total, let reason):
            "\(name): \(reason); the head unit confirmed \(confirmed) of \(total) bytes"
        case .cancelled(let name, let confirmed, let total): "\(name): cancelled after \(confirmed) of \(total) bytes were confirmed"
        }
    }

    /// Failures another attempt may get past (not a full storage, a refusal of the app, a drop).
    var isWorthRetrying: Bool {
        guard case .failed(_, _, _, let reason) = self else { return false }
        switch reason {
        case .refused(let code, _): return ![.outOfMemory, .disallowed, .rejected, .userDisallowed, .applicationNotRegistered].contains(code)
        case .timedOut: return true
        case .connectionLost, .cancelled, .other: return false
        }
    }
}

/// What went wrong with a chunk (or a list or delete).
package enum SDLUploadFailure: Sendable, Hashable, CustomStringConvertible {
    /// The head unit answered `success=false`.
    case refused(SDLResult, info: String?)
    /// No answer within the request timeout.
    case timedOut
    /// The connection to the head unit ended; the reason says why.
    case connectionLost(SDLCloseReason)
    /// The task doing the operation was cancelled.
    case cancelled
    /// Anything else, described in the text.
    case other(String)

    init(_ error: any Error) {
        switch SDLError.cause(of: error) {
        case SDLRPCError.timeout: self = .timedOut
        case SDLRPCError.connectionClosed(let reason): self = .connectionLost(reason)
        case SDLRPCError.cancelled: self = .cancelled
        case SDLRPCError.genericResponse(let result, let info): self = .refused(SDLResult(rawValue: result), info: info)
        default: self = .other("\(error)")
        }
    }

    /// A readable explanation of the failure, for logs.
    public var description: String {
        switch self {
        case .refused(let code, let info): "the head unit answered \(code.rawValue)" + (info.map { " (\($0))" } ?? "")
        case .timedOut: "a chunk was not answered in time"
        case .connectionLost(let reason): "the connection was lost: \(reason)"
        case .cancelled: "cancelled"
        case .other(let text): text
        }
    }
}

/// One upload attempt's chunks in flight and what the head unit confirmed.
struct UploadState {
    struct Chunk {
        var offset: Int
        var length: Int
        var response: SDLPendingResponse<PutFile>
    }

    var confirmed: Int
    var totalBytes: Int
    var failure: SDLUploadFailure?
    var inFlight = Deque<Chunk>()
}

struct PartialUpload: Sendable {
    var totalBytes: Int
    var fingerprint: UInt32
    var confirmedBytes: Int
}

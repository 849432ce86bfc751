import Foundation
import SDLHeadUnit
import Synchronization

/// `sdl headunit --record-streams DIR`: appends each app's stream to its file as it arrives,
/// `<appID>-video.h264` (playable: H.264 Annex-B) and `<appID>-audio.pcm`.
final class StreamRecorder: Sendable {
    private let directory: URL
    private let files = Mutex<[String: FileHandle]>([:])

    init(directory: String) throws {
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
    }

    func write(_ chunk: SDLStreamChunk) {
        let safe = String(chunk.appID.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        let name = "\(safe)-\(chunk.service == 11 ? "video.h264" : "audio.pcm")"
        files.withLock { files in
            if files[name] == nil {
                let url = directory.appendingPathComponent(name)
                _ = FileManager.default.createFile(atPath: url.path, contents: nil)
                files[name] = try? FileHandle(forWritingTo: url)
            }
            files[name]?.write(Data(chunk.bytes))
        }
    }
}

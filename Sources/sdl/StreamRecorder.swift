import Foundation
import SDLHeadUnit
import SmartDeviceLink
import Synchronization

/// `sdl headunit --record-streams DIR`: appends each app's stream to its file as it arrives:
/// `<appID>-video.h264` (H.264 Annex-B, RTP depacketised: ffplay plays it) and
/// `<appID>-audio.wav` (the PCM in the head unit's `pcmStreamCapabilities` format, its RIFF
/// sizes kept current after every write, so the file plays even while the app streams).
final class StreamRecorder: Sendable {
    private struct Recording {
        var handle: FileHandle
        var bytes = 0
    }

    private let directory: URL
    private let audioFormat: SDLAudioFormat
    private let files = Mutex<[String: Recording]>([:])
    /// Recordings that failed (a full disk, a directory gone): not opened again, which would
    /// truncate what was written.
    private let failed = Mutex<Set<String>>([])

    init(directory: String, audioFormat: SDLAudioFormat) throws {
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
        self.audioFormat = audioFormat
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
    }

    func write(_ chunk: SDLStreamChunk) {
        let safe = String(chunk.appID.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        let isAudio = chunk.service != 11
        let name = "\(safe)-\(isAudio ? "audio.wav" : "video.h264")"
        guard !failed.withLock({ $0.contains(name) }) else { return }
        let error: (any Error)? = files.withLock { files in
            do {
                var recording: Recording
                if let open = files[name] {
                    recording = open
                } else {
                    let url = directory.appendingPathComponent(name)
                    let header = isAudio ? Data(SDLWAV.header(format: audioFormat, dataLength: 0)) : Data()
                    guard FileManager.default.createFile(atPath: url.path, contents: header) else { throw CocoaError(.fileWriteUnknown) }
                    recording = Recording(handle: try FileHandle(forWritingTo: url))
                    try recording.handle.seekToEnd()
                }
                try recording.handle.write(contentsOf: chunk.bytes)
                recording.bytes += chunk.bytes.count
                if isAudio {
                    // The header's sizes follow the data: rewrite it, then go back to the end.
                    try recording.handle.seek(toOffset: 0)
                    try recording.handle.write(contentsOf: SDLWAV.header(format: audioFormat, dataLength: min(recording.bytes, Int(UInt32.max) - 36)))
                    try recording.handle.seekToEnd()
                }
                files[name] = recording
                return nil
            } catch {
                try? files.removeValue(forKey: name)?.handle.close()
                return error
            }
        }
        if let error {
            failed.withLock { _ = $0.insert(name) }
            Output.error("recording \(name) stopped: \(error)")
        }
    }
}

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

    init(directory: String, audioFormat: SDLAudioFormat) throws {
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
        self.audioFormat = audioFormat
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
    }

    func write(_ chunk: SDLStreamChunk) {
        let safe = String(chunk.appID.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        let isAudio = chunk.service != 11
        let name = "\(safe)-\(isAudio ? "audio.wav" : "video.h264")"
        files.withLock { files in
            if files[name] == nil {
                let url = directory.appendingPathComponent(name)
                _ = FileManager.default.createFile(atPath: url.path, contents: isAudio ? Data(SDLWAV.header(format: audioFormat, dataLength: 0)) : nil)
                guard let handle = try? FileHandle(forWritingTo: url) else { return }
                handle.seekToEndOfFile()
                files[name] = Recording(handle: handle)
            }
            guard var recording = files[name] else { return }
            recording.handle.write(Data(chunk.bytes))
            recording.bytes += chunk.bytes.count
            if isAudio {
                // The header's sizes follow the data: rewrite it, then go back to the end.
                recording.handle.seek(toFileOffset: 0)
                recording.handle.write(Data(SDLWAV.header(format: audioFormat, dataLength: recording.bytes)))
                recording.handle.seekToEndOfFile()
            }
            files[name] = recording
        }
    }
}

/// Linear PCM audio in memory: interleaved little-endian samples (8-bit unsigned, 16-, 24- or
/// 32-bit signed), any rate and channel count. Prompts come as such buffers (or WAV files) and
/// are converted to the head unit's format before they are streamed.
public struct SDLPCMBuffer: Sendable, Hashable {
    /// Samples per second per channel (4,000 to 768,000).
    public private(set) var sampleRate: Int
    /// 8, 16, 24 or 32.
    public private(set) var bitsPerSample: Int
    /// 1 (mono), 2 (stereo)... up to 32.
    public private(set) var channels: Int
    /// The interleaved samples (a last partial sample is ignored).
    public private(set) var bytes: [UInt8]

    /// A buffer of `bytes` in this format; ``SDLError`` `invalidArgument` for a format out of range.
    public init(sampleRate: Int, bitsPerSample: Int, channels: Int = 1, bytes: [UInt8]) throws(SDLError) {
        guard (4_000...768_000).contains(sampleRate), [8, 16, 24, 32].contains(bitsPerSample), (1...32).contains(channels) else {
            throw SDLPCMError.unsupportedFormat("PCM at \(sampleRate) Hz, \(bitsPerSample) bits, \(channels) channels").sdlError
        }
        self.sampleRate = sampleRate
        self.bitsPerSample = bitsPerSample
        self.channels = channels
        self.bytes = bytes
    }

    /// The PCM of a WAV file's bytes (RIFF, format 1 or WAVE_FORMAT_EXTENSIBLE with PCM).
    /// Throws ``SDLError`` `invalidArgument` when it is not a WAV file or not PCM.
    public init(wav: [UInt8]) throws(SDLError) {
        func le16(_ at: Int) -> Int { Int(wav[at]) | Int(wav[at + 1]) << 8 }
        // Sizes are unsigned 32-bit (0xFFFFFFFF in a streamed WAV): never negative, also where Int has 32 bits.
        func le32(_ at: Int) -> Int { Int(clamping: UInt64(le16(at)) | UInt64(le16(at + 2)) << 16) }
        guard wav.count >= 12, wav[0..<4].elementsEqual("RIFF".utf8), wav[8..<12].elementsEqual("WAVE".utf8) else {
            throw SDLPCMError.notWAV("no RIFF/WAVE header").sdlError
        }
        var format: (encoding: Int, channels: Int, rate: Int, bits: Int)?
        var offset = 12
        while offset + 8 <= wav.count {
            let size = le32(offset + 4)
            let body = offset + 8
            // A data chunk may claim more than the file holds (a recording cut short): take what is there.
            let end = size > wav.count - body ? wav.count : body + size
            if wav[offset..<(offset + 4)].elementsEqual("fmt ".utf8), size >= 16, body + 16 <= wav.count {
                var encoding = le16(body)
                // WAVE_FORMAT_EXTENSIBLE: the sub-format's first two bytes are the encoding.
                if encoding == 0xFFFE, size >= 40, body + 26 <= wav.count { encoding = le16(body + 24) }
                format = (encoding, le16(body + 2), le32(body + 4), le16(body + 14))
            } else if wav[offset..<(offset + 4)].elementsEqual("data".utf8) {
                guard let format else { throw SDLPCMError.notWAV("the data chunk comes before the fmt chunk").sdlError }
                guard format.encoding == 1 else {
                    throw SDLPCMError.unsupportedFormat("WAV encoding \(format.encoding) (only PCM, 1, is read; decode other formats first)").sdlError
                }
                try self.init(sampleRate: format.rate, bitsPerSample: format.bits, channels: format.channels, bytes: Array(wav[body..<end]))
                return
            }
            // A chunk claiming more than the file holds ends the walk (no overflow).
            guard size <= wav.count - body else { break }
            offset = body + size + (size & 1)
        }
        throw SDLPCMError.notWAV("no data chunk").sdlError
    }

    /// Samples per channel.
    public var frameCount: Int { bytes.count / max(1, bitsPerSample / 8 * channels) }

    /// How long it plays.
    public var duration: Duration { .seconds(Double(frameCount) / Double(sampleRate)) }

    /// The sample `frame` of `channel` as a value in -1...1.
    private func sample(_ frame: Int, _ channel: Int) -> Double {
        let width = bitsPerSample / 8
        let at = (frame * channels + channel) * width
        switch bitsPerSample {
        case 8: return (Double(bytes[at]) - 128) / 128
        case 16: return Double(Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8)) / 32_768
        case 24:
            let value = Int32(bitPattern: UInt32(bytes[at]) << 8 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 24) >> 8
            return Double(value) / 8_388_608
        default:
            let value = Int32(bitPattern: UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24)
            return Double(value) / 2_147_483_648
        }
    }

    /// The audio in `format`: channels mixed down to mono, resampled (linear interpolation) and
    /// requantised to 8-bit unsigned or 16-bit signed, as the head unit plays it.
    public func converted(to format: SDLAudioFormat) -> [UInt8] {
        let target = format.sampleRate
        let frames = frameCount
        guard target > 0, frames > 0 else { return [] }
        let outputFrames = Int((Double(frames) * Double(target) / Double(sampleRate)).rounded())
        var output: [UInt8] = []
        output.reserveCapacity(outputFrames * format.bytesPerSample)
        let step = Double(sampleRate) / Double(target)
        for index in 0..<outputFrames {
            let position = Double(index) * step
            let left = min(frames - 1, Int(position))
            let right = min(frames - 1, left + 1)
            let fraction = position - Double(left)
            var mixed = 0.0
            for channel in 0..<channels {
                mixed += sample(left, channel) * (1 - fraction) + sample(right, channel) * fraction
            }
            let value = max(-1, min(1, mixed / Double(channels)))
            if format.bytesPerSample == 2 {
                let sample = Int16(clamping: Int((value * 32_767).rounded()))
                output.append(UInt8(truncatingIfNeeded: sample))
                output.append(UInt8(truncatingIfNeeded: sample >> 8))
            } else {
                output.append(UInt8(clamping: Int((value * 127).rounded()) + 128))
            }
        }
        return output
    }
}

/// Why audio could not be read.
package enum SDLPCMError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a WAV file, or a broken one.
    case notWAV(String)
    /// A format this library does not convert (compressed audio: decode it first).
    case unsupportedFormat(String)
    /// The file could not be read.
    case unreadable(path: String)

    /// The error in words.
    public var description: String {
        switch self {
        case .notWAV(let reason): "not a WAV file: \(reason)"
        case .unsupportedFormat(let format): "unsupported audio: \(format)"
        case .unreadable(let path): "cannot read \(path)"
        }
    }
}

/// Turns audio the library cannot read itself (MP3, AAC, Opus...) into PCM: the hook through
/// which an app brings its decoder (AVFoundation on Apple platforms, an ffmpeg process or
/// library elsewhere) without `SmartDeviceLink` depending on one.
public protocol SDLAudioDecoder: Sendable {
    /// The PCM of `encoded` audio.
    func decode(_ encoded: [UInt8]) async throws -> SDLPCMBuffer
}

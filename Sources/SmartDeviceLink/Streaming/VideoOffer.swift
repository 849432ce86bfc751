import SDLProtocol
import SDLRPC

/// One offer to the head unit: a format and a size.
struct VideoOffer: StreamServiceOffer {
    var format: VideoStreamingFormat
    var resolution: ImageResolution?
    /// The scale of the capability the size came from.
    var scale: Double

    var name: String {
        format.name + (resolution.map { " \($0.resolutionWidth)x\($0.resolutionHeight)" } ?? "")
    }

    /// The StartService parameters.
    var payload: SDLControlPayload {
        var payload = SDLControlPayload()
        payload.videoProtocol = format.protocol.rawValue
        payload.videoCodec = format.codec.rawValue
        if let resolution {
            payload.width = Int32(clamping: resolution.resolutionWidth)
            payload.height = Int32(clamping: resolution.resolutionHeight)
        }
        return payload
    }

    /// The offers for a configuration and the head unit's VIDEO_STREAMING capability, best
    /// first: each format in the app's order with each size.
    static func offers(_ configuration: SDLVideoStreamingConfiguration, capability: VideoStreamingCapability?) -> [VideoOffer] {
        var formats = configuration.formats.filter(\.isSendable)
        if let supported = capability?.supportedFormats, !supported.isEmpty {
            formats = formats.filter { supported.contains($0) }
        }
        var sizes: [(ImageResolution?, Double)] = []
        switch configuration.resolution {
        case .exactly(let resolutions):
            sizes = resolutions.map { ($0, capability?.scale ?? 1) }
        case .headUnitPreferred:
            let entries = [capability].compactMap { $0 } + (capability?.additionalVideoStreamingCapabilities ?? [])
            for entry in entries {
                guard let preferred = entry.preferredResolution else { continue }
                let scale = (entry.scale ?? capability?.scale).flatMap { $0 > 0 ? $0 : nil } ?? 1
                let size = ImageResolution(
                    resolutionWidth: Int((Double(preferred.resolutionWidth) / scale).rounded()),
                    resolutionHeight: Int((Double(preferred.resolutionHeight) / scale).rounded()))
                if !sizes.contains(where: { $0.0 == size }) { sizes.append((size, scale)) }
            }
            if sizes.isEmpty { sizes = [(nil, 1)] }
        }
        return formats.flatMap { format in sizes.map { VideoOffer(format: format, resolution: $0.0, scale: $0.1) } }
    }

    /// Whether a refusal of `parameters` (rejectedParams) of `refused` rules this offer out too.
    func isRuledOut(by parameters: Set<String>, of refused: VideoOffer) -> Bool {
        let formatRefused = parameters.contains("videoProtocol") || parameters.contains("videoCodec")
        let sizeRefused = parameters.contains("height") || parameters.contains("width")
        if parameters.contains("videoProtocol"), format.protocol == refused.format.protocol, !parameters.contains("videoCodec") { return true }
        if parameters.contains("videoCodec"), format.codec == refused.format.codec, !parameters.contains("videoProtocol") { return true }
        if formatRefused, format == refused.format { return true }
        if sizeRefused, resolution == refused.resolution { return true }
        return false
    }
}

import SDLProtocol
import SDLRPC
import Testing

@testable import SmartDeviceLink

/// The video stream's lifecycle as a value: each event's actions, with no session or emulator.
@Suite struct VideoStreamLifecycleTests {
    static let capability = VideoStreamingCapability(
        preferredResolution: ImageResolution(resolutionWidth: 800, resolutionHeight: 480),
        supportedFormats: [VideoStreamingFormat(protocol: .raw, codec: .h264), VideoStreamingFormat(protocol: .rtp, codec: .h264)],
        scale: 2,
        additionalVideoStreamingCapabilities: [
            VideoStreamingCapability(preferredResolution: ImageResolution(resolutionWidth: 400, resolutionHeight: 240), scale: 1)
        ])

    static let offers = VideoOffer.offers(SDLVideoStreamingConfiguration(), capability: capability)

    static let parameters = SDLVideoStreamParameters(
        format: VideoStreamingFormat(protocol: .raw, codec: .h264), resolution: ImageResolution(resolutionWidth: 400, resolutionHeight: 240),
        scale: 2, mtu: 131_072, frameRate: 15, maxBitrate: 600, hapticSpatialDataSupported: false)

    /// The actions in words: "start RTP/H264 400x240", "end", "publish streaming RAW/H264 400x240".
    static func words(_ actions: [VideoStreamLifecycle.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .start(let offer): "start \(offer.name)"
            case .end: "end"
            case .publish(let state): "publish \(SDLVideoStreamingManager.publicState(state))"
            }
        }
    }

    @Test func offersAreEachFormatInOrderWithEachSizeDividedByItsScale() {
        // The configuration's order (RTP first), narrowed to what the head unit lists; the
        // preferred 800x480 at scale 2 is offered as 400x240, the additional 400x240 (scale 1) is the same size.
        #expect(Self.offers.map(\.name) == ["RTP/H264 400x240", "RAW/H264 400x240"])
        var configuration = SDLVideoStreamingConfiguration()
        configuration.formats = [VideoStreamingFormat(protocol: .rtsp, codec: .theora), VideoStreamingFormat(protocol: .rtp, codec: .h265)]
        #expect(VideoOffer.offers(configuration, capability: Self.capability).isEmpty, "neither can be sent by this library")
    }

    @Test func aRefusedProtocolMovesOnAndEveryStepIsPublished() {
        var machine = VideoStreamLifecycle()
        #expect(Self.words(machine.connected(offers: Self.offers, unusable: nil, level: .none, streamable: false)) == ["publish suspended (HMI level NONE)"])
        #expect(Self.words(machine.hmiChanged(level: .full, streamable: true)) == ["publish starting", "start RTP/H264 400x240"])
        #expect(
            Self.words(machine.startAnswered(.refused(rejectedParams: ["videoProtocol"], reason: "no RTP"))) == ["publish starting", "start RAW/H264 400x240"])
        #expect(Self.words(machine.startAnswered(.accepted(Self.parameters))) == ["publish streaming RAW/H264 400x240"])
        #expect(machine.phase == .streaming)
        #expect(Self.words(machine.hmiChanged(level: .limited, streamable: false)) == ["publish suspended (not streamable)"])
        #expect(Self.words(machine.hmiChanged(level: .full, streamable: true)) == ["publish streaming RAW/H264 400x240"])
        #expect(Self.words(machine.hmiChanged(level: .none, streamable: false)) == ["publish suspended (HMI level NONE)", "end"])
        #expect(Self.words(machine.endAnswered()) == [])
        #expect(Self.words(machine.disconnected()) == ["publish suspended (connection lost)"])
        #expect(Self.words(machine.stop()) == ["publish stopped"])
        #expect(Self.words(machine.hmiChanged(level: .full, streamable: true)) == [], "stopped for good")
    }

    @Test func aStopWhileStartingEndsTheServiceOnceTheHeadUnitStartedIt() {
        var machine = VideoStreamLifecycle()
        _ = machine.connected(offers: Self.offers, unusable: nil, level: .full, streamable: true)
        #expect(Self.words(machine.stop()) == ["publish stopped"])
        #expect(Self.words(machine.startAnswered(.accepted(Self.parameters))) == ["end"], "never streaming")
        #expect(machine.parameters == nil)
    }

    @Test func aFallbackRefusedForTheHMILevelIsASuspensionNotAFailure() {
        // SDL Core's order: the NAK, then OnHMIStatus NONE; the fallback went out in between.
        var machine = VideoStreamLifecycle()
        _ = machine.connected(offers: Self.offers, unusable: nil, level: .full, streamable: true)
        #expect(Self.words(machine.startAnswered(.refused(rejectedParams: ["videoProtocol"], reason: nil))) == ["publish starting", "start RAW/H264 400x240"])
        #expect(
            Self.words(machine.startAnswered(.refused(rejectedParams: [], reason: "Service type: 11 disallowed with current HMI level"))) == [
                "publish suspended (not streamable)"
            ])
        #expect(Self.words(machine.hmiChanged(level: .none, streamable: false)) == ["publish suspended (HMI level NONE)"])
        #expect(Self.words(machine.hmiChanged(level: .full, streamable: true)) == ["publish starting", "start RAW/H264 400x240"])
    }

    @Test func everyOfferRefusedFailsUntilTheNextConnection() {
        var machine = VideoStreamLifecycle()
        _ = machine.connected(offers: Self.offers, unusable: nil, level: .full, streamable: true)
        #expect(
            Self.words(machine.startAnswered(.refused(rejectedParams: ["width", "height"], reason: nil))) == [
                "publish failed (the head unit refused every video format offered (RTP/H264 400x240))"
            ],
            "the only size is refused: RAW at that size would be too")
        #expect(Self.words(machine.hmiChanged(level: .full, streamable: true)) == [])
        #expect(
            Self.words(machine.connected(offers: Self.offers, unusable: nil, level: .full, streamable: true)) == ["publish starting", "start RTP/H264 400x240"])
    }

    @Test func aRefusalForTheHMILevelWaitsForTheNextStreamableAndRetriesTheSameOffer() {
        var machine = VideoStreamLifecycle()
        _ = machine.connected(offers: Self.offers, unusable: nil, level: .full, streamable: true)
        let refused = Self.words(machine.startAnswered(.refused(rejectedParams: [], reason: "disallowed with current HMI level")))
        #expect(refused == ["publish failed (the head unit refused the video service: disallowed with current HMI level)"])
        #expect(Self.words(machine.hmiChanged(level: .full, streamable: true)) == [], "no loop while nothing changed")
        #expect(Self.words(machine.hmiChanged(level: .background, streamable: false)) == ["publish suspended (not streamable)"])
        #expect(Self.words(machine.hmiChanged(level: .full, streamable: true)) == ["publish starting", "start RTP/H264 400x240"])
    }

    @Test func theHeadUnitEndingTheServiceSuspendsUntilTheNextStreamable() {
        var machine = VideoStreamLifecycle()
        _ = machine.connected(offers: Self.offers, unusable: nil, level: .full, streamable: true)
        _ = machine.startAnswered(.accepted(Self.parameters))
        #expect(Self.words(machine.endedByHeadUnit()) == ["publish suspended (ended by the head unit)"])
        #expect(Self.words(machine.hmiChanged(level: .full, streamable: true)) == [])
        _ = machine.hmiChanged(level: .limited, streamable: false)
        #expect(Self.words(machine.hmiChanged(level: .full, streamable: true)) == ["publish starting", "start RTP/H264 400x240"])
    }
}

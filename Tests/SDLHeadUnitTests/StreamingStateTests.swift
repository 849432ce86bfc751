import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// Who may start the video and audio services and when, STREAMABLE for the video app on screen,
/// and services ended at NONE: SDL Core 8.2's session-level streaming rules.
@Suite(.timeLimit(.minutes(1))) struct StreamingStateTests {
    static func refusal(_ body: () async throws -> Void) async -> (reason: String?, rejected: [String]) {
        do {
            try await body()
            Issue.record("expected a StartServiceNAK")
        } catch SDLSessionError.startRejected(_, let rejected, let reason) {
            return (reason, rejected)
        } catch {
            Issue.record("unexpected \(error)")
        }
        return (nil, [])
    }

    @Test func aNavigationAppInFullIsStreamableAndStartsVideoOnce() async throws {
        let headUnit = TestApp.headUnit()
        let nav = try await TestApp.register(to: headUnit, appID: "nav", types: [.navigation], activate: false)
        try await headUnit.activate(appID: "nav")
        #expect(await nav.status { $0.hmiLevel == .full }?.videoStreamingState == .streamable)
        var video = SDLControlPayload()
        video.videoProtocol = "RAW"
        video.videoCodec = "H264"
        video.width = 800
        video.height = 380
        let ack = try await nav.session.startService(.video, parameters: video)
        #expect(ack.videoProtocol == "RAW" && ack.videoCodec == "H264" && ack.width == 800 && ack.height == 380)
        #expect(ack.mtu == 131_072)
        let again = await Self.refusal { try await nav.session.startService(.video, parameters: video) }
        #expect(
            again.reason
                == "Cannot start an unprotected service of type 11. Session \(await nav.session.session?.sessionID ?? 0) already has an unprotected service of type 11"
        )
        _ = try await nav.session.startService(.audio)

        // Leaving for NONE ends both services from the head unit's side.
        let events = headUnit.events()
        try await headUnit.exit(appID: "nav")
        var ended: Set<Int> = []
        for await event in events {
            if case .streamingEnded("nav", let service) = event { ended.insert(service) }
            if ended.count == 2 { break }
        }
        #expect(ended == [10, 11])
        await nav.close()
    }

    @Test func otherAppTypesAndLevelsAreRefusedWithCoresReasons() async throws {
        let headUnit = TestApp.headUnit()
        let plain = try await TestApp.register(to: headUnit, appID: "plain")
        #expect(await Self.refusal { try await plain.session.startService(.video) }.reason == "Service type: 11 disallowed with current HMI type")
        let projection = try await TestApp.register(to: headUnit, appID: "projection", types: [.projection], activate: false)
        try await headUnit.activate(appID: "projection")
        #expect(await projection.status { $0.hmiLevel == .full }?.audioStreamingState == .notAudible)
        #expect(await Self.refusal { try await projection.session.startService(.audio) }.reason == "Service type: 10 disallowed with current HMI type")
        let waiting = try await TestApp.register(to: headUnit, appID: "waiting", types: [.navigation], activate: false)
        #expect(await Self.refusal { try await waiting.session.startService(.video) }.reason == "Service type: 11 disallowed with current HMI level")
        for app in [plain, projection, waiting] { await app.close() }
    }

    /// SDL Core takes an app whose audio service it refuses to NONE, as for video: a media app
    /// that is not a navigation app does not stay FULL and AUDIBLE.
    @Test func aRefusedAudioServiceTakesTheAppToNoneAsVideoDoes() async throws {
        let headUnit = TestApp.headUnit()
        let music = try await TestApp.register(to: headUnit, appID: "music", media: true)
        #expect(await Self.refusal { try await music.session.startService(.audio) }.reason == "Service type: 10 disallowed with current HMI type")
        let status = await music.status { $0.hmiLevel == .none }
        #expect(status?.audioStreamingState == .notAudible)
        let plain = try await TestApp.register(to: headUnit, appID: "plain")
        #expect(await Self.refusal { try await plain.session.startService(.video) }.reason == "Service type: 11 disallowed with current HMI type")
        #expect(await plain.status { $0.hmiLevel == .none } != nil)
        await music.close()
        await plain.close()
    }

    @Test func anUnknownCodecIsRefusedWithItsParameterAndTheAppGoesToNone() async throws {
        let headUnit = TestApp.headUnit()
        let nav = try await TestApp.register(to: headUnit, appID: "nav", types: [.navigation])
        var video = SDLControlPayload()
        video.videoCodec = "MPEG2"
        let refused = await Self.refusal { try await nav.session.startService(.video, parameters: video) }
        #expect(refused.rejected == ["videoCodec"])
        #expect(await nav.status { $0.hmiLevel == .none }?.videoStreamingState == .notStreamable)
        await nav.close()
    }

    @Test func anotherVideoAppOnScreenTakesStreamableAway() async throws {
        let headUnit = TestApp.headUnit()
        let first = try await TestApp.register(to: headUnit, appID: "first", types: [.navigation])
        _ = try await TestApp.register(to: headUnit, appID: "second", types: [.projection])
        let displaced = await first.status { $0.videoStreamingState == .notStreamable }
        #expect(displaced?.hmiLevel == .limited)
        // One OnHMIStatus for the change, as SDL Core sends it: not LIMITED+STREAMABLE first.
        let statuses = await headUnit.recordedRPCs(appID: "first").filter { $0.direction == "out" && $0.functionName == "OnHMIStatus" }
            .compactMap(\.parameters).map { [$0["hmiLevel"], $0["videoStreamingState"]] }
        #expect(statuses.suffix(2) == [[.string("FULL"), .string("STREAMABLE")], [.string("LIMITED"), .string("NOT_STREAMABLE")]])
        await first.close()
    }

    @Test func videoIsNegotiatedAgainstTheConfiguredCapability() async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.videoStreaming.supportedFormats = [VideoStreamingFormat(protocol: .rtp, codec: .h264)]
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        let nav = try await TestApp.register(to: headUnit, appID: "nav", types: [.navigation])
        let capability = try await nav.client.send(GetSystemCapability(systemCapabilityType: .videoStreaming)).systemCapability?.videoStreamingCapability
        #expect(capability?.preferredResolution == ImageResolution(resolutionWidth: 800, resolutionHeight: 380))
        #expect(capability?.additionalVideoStreamingCapabilities?.count == 7)
        var raw = SDLControlPayload()
        raw.videoProtocol = "RAW"
        raw.videoCodec = "H264"
        #expect(await Self.refusal { try await nav.session.startService(.video, parameters: raw) }.rejected == ["videoProtocol", "videoCodec"])
        await nav.close()

        let again = try await TestApp.register(to: headUnit, appID: "again", types: [.navigation])
        var rtp = SDLControlPayload()
        rtp.videoProtocol = "RTP"
        rtp.videoCodec = "H264"
        #expect(try await again.session.startService(.video, parameters: rtp).videoProtocol == "RTP")
        await again.close()
    }
}

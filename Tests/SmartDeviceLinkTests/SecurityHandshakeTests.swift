import Foundation
import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLTLS
import SDLTestSupport
import SDLTransport
import SmartDeviceLink
import Testing

/// The SDL security handshake end to end: the app's session (TLS server, swift-nio-ssl) and the
/// emulator as SDL Core's security manager (TLS client checking the app's certificate), over
/// memory and TCP; protected RPCs and video; SDL Core's failures and fallback.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct SecurityHandshakeTests {
    static let appID = "secure-app"

    /// A head unit whose security manager trusts `authority`; frames it logs go to `log`.
    static func headUnit(
        trusting authority: SDLCertificateAuthority, log: Locked<[SDLJSONValue]>? = nil, activates: Bool = false,
        tls13: SDLTLSSecurity.TLS13 = .refused, frames: AsyncStream<SDLJSONValue>.Continuation? = nil
    ) -> SDLHeadUnitEmulator {
        var configuration = SDLHeadUnitEmulator.Configuration()
        // Apps wait in NONE for the test's activation, unless the head unit activates them itself.
        if !activates { configuration.activationDelay = nil }
        let trusted = authority.certificate
        configuration.security = { appID in
            try SDLTLSSecurity(role: .client(SDLCertificateCheck(authority: trusted, expectedSerialNumber: appID)), tls13: tls13)
        }
        if let log { configuration.log = { entry in log.withLock { $0.append(entry) } } }
        if let frames { configuration.log = { entry in frames.yield(entry) } }
        return SDLHeadUnitEmulator(configuration: configuration)
    }

    /// Registers over `transport` with `identity` as the app's TLS identity, then runs `body`.
    static func registered<T: Sendable>(
        _ transport: any SDLTransport, identity: SDLTLSIdentity, types: [AppHMIType] = [.default], tls13: SDLTLSSecurity.TLS13 = .refused,
        _ body: (SDLRPCClient) async throws -> T
    ) async throws -> T {
        var configuration = SDLProtocolSession.Configuration()
        configuration.controlTimeout = .seconds(30)
        configuration.security = try SDLTLSSecurity(role: .server(identity), tls13: tls13)
        return try await withSDLSession(transport: transport, configuration: configuration) { client in
            let registration = try await client.send(
                RegisterAppInterface(
                    syncMsgVersion: SyncMsgVersion(majorVersion: 8, minorVersion: 0, patchVersion: 0), appName: "Secure",
                    isMediaApplication: false, languageDesired: .enUs, hmiDisplayLanguageDesired: .enUs, appHMIType: types, appID: appID))
            #expect(registration.success)
            return try await body(client)
        }
    }

    /// StartService(video) parameters: H.264 over RAW, one message per access unit.
    static var rawH264: SDLControlPayload {
        var parameters = SDLControlPayload()
        parameters.videoProtocol = "RAW"
        parameters.videoCodec = "H264"
        return parameters
    }

    static func memory(_ headUnit: SDLHeadUnitEmulator) -> any SDLTransport {
        let (app, car) = SDLMemoryTransport.pair()
        Task { await headUnit.serve(car) }
        return app
    }

    /// TLS 1.3 end to end: with a head unit that offers it too, protected requests work; with
    /// one that behaves as SDL Core 8.2 (`sdl headunit --security`), the handshake completes
    /// and the app's encrypted request is answered with internal error DECRYPTION_FAILED.
    @Test func anAppThatOffersTLS13WorksWhereTheHeadUnitDoesAndFailsAsOnSDLCore() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let modern = Self.headUnit(trusting: authority, tls13: .offered)
        try await Self.registered(Self.memory(modern), identity: try authority.issue(appID: Self.appID), tls13: .offered) { client in
            let protection = try await client.session.startProtectedService(.rpc)
            #expect(protection.isEncrypted)
            let listed = try await client.send(ListFiles(), encrypted: true)
            #expect(listed.success)
        }

        let (frames, sink) = AsyncStream<SDLJSONValue>.makeStream()
        let core = Self.headUnit(trusting: authority, tls13: .brokenAsInSDLCore82, frames: sink)
        try await Self.registered(Self.memory(core), identity: try authority.issue(appID: Self.appID), tls13: .offered) { client in
            let protection = try await client.session.startProtectedService(.rpc)
            #expect(protection.isEncrypted)
            let request = Task { try await client.send(ListFiles(), encrypted: true) }
            // After the encrypted request, the head unit's answer is a security query on the
            // control service (the internal error), not a response.
            var requested = false
            for await frame in frames {
                if frame["direction"] == .string("in"), frame["serviceType"] == .integer(7), frame["encrypted"] == .bool(true) { requested = true }
                if requested, frame["direction"] == .string("out") {
                    #expect(frame["serviceType"] == .integer(0) && frame["control"] == nil)
                    break
                }
            }
            request.cancel()
            _ = await request.result
        }
    }

    @Test func theHandshakeProtectsTheRPCServiceAndEncryptedRequestsGetEncryptedResponses() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let log = Locked<[SDLJSONValue]>([])
        let headUnit = Self.headUnit(trusting: authority, log: log)
        try await Self.registered(Self.memory(headUnit), identity: try authority.issue(appID: Self.appID)) { client in
            let protection = try await client.session.startProtectedService(.rpc)
            #expect(protection.isEncrypted)
            try await headUnit.activate(appID: Self.appID)
            let reading = try await client.send(GetVehicleData(speed: true), encrypted: true)
            #expect(reading.success && reading.speed != nil)
            // Larger than one record: the message goes out in several frames, each its own record.
            let icon = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let put = try await client.send(PutFile(syncFileName: "icon.png", fileType: .graphicPng), bulkData: icon, encrypted: true)
            #expect(put.success)
            #expect(await headUnit.file(appID: Self.appID, name: "icon.png") == icon)
            // Plain requests still work beside them.
            #expect(try await client.send(ListFiles()).success)
        }
        let frames = log.withLock { $0 }
        func encrypted(_ direction: String, service: Int) -> Int {
            frames.filter { $0["direction"] == .string(direction) && $0["serviceType"] == .integer(service) && $0["encrypted"] == .bool(true) }.count
        }
        // The protected ACK and the responses to GetVehicleData and PutFile went out encrypted;
        // GetVehicleData came in encrypted (with the StartService's bit), and PutFile's 40 KB in
        // three consecutive frames on the hybrid service, each its own record.
        #expect(encrypted("out", service: 7) == 3)
        #expect(encrypted("in", service: 7) == 2)
        #expect(encrypted("in", service: 15) == 3)
        // The handshake travelled as security queries on the control service.
        #expect(frames.contains { $0["direction"] == .string("in") && $0["serviceType"] == .integer(0) && $0["frameType"] == .integer(1) })
    }

    @Test func theHandshakeRunsOverTCP() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let headUnit = Self.headUnit(trusting: authority)
        let listener = try await SDLTCPListener.bind(host: "127.0.0.1", port: 0)
        let server = Task { try await listener.run { transport in await headUnit.serve(transport) } }
        let transport = try await SDLTCPTransport.connect(host: "127.0.0.1", port: listener.port, policy: .standard)
        try await Self.registered(transport, identity: try authority.issue(appID: Self.appID)) { (client: SDLRPCClient) async throws in
            #expect(try await client.session.startProtectedService(.rpc).isEncrypted)
            #expect(try await client.send(ListFiles(), encrypted: true).success)
        }
        await listener.close()
        server.cancel()
    }

    /// Each certificate SDL Core refuses: the internal error's code, then EndService(RPC) and a
    /// NAK; the app stays registered, in NONE, and its plain session goes on.
    @Test(arguments: [
        ("another CA", SDLSecurityErrorCode.invalidCertificate),
        ("expired", SDLSecurityErrorCode.expiredCertificate),
        ("another app", SDLSecurityErrorCode.invalidCertificate),
    ])
    func refusedCertificates(_ problem: String, _ code: SDLSecurityErrorCode) async throws {
        let authority = try SDLCertificateAuthority.generate()
        let headUnit = Self.headUnit(trusting: authority)
        let identity: SDLTLSIdentity
        switch problem {
        case "another CA": identity = try SDLCertificateAuthority.generate(name: "Rogue CA").issue(appID: Self.appID)
        case "expired":
            identity = try authority.issue(appID: Self.appID, notBefore: Date(timeIntervalSinceNow: -9 * 86_400), notAfter: Date(timeIntervalSinceNow: -86_400))
        default: identity = try authority.issue(appID: "someone-else")
        }
        try await Self.registered(Self.memory(headUnit), identity: identity) { client in
            try await headUnit.activate(appID: Self.appID)
            do {
                _ = try await client.session.startProtectedService(.rpc)
                Issue.record("the head unit protected the service with a bad certificate (\(problem))")
            } catch SDLSessionError.protectionFailed(.rpc, let reason, let security) {
                #expect(security?.code == code)
                #expect(reason?.hasPrefix("Invalid certificate") == true)
                if problem == "another app" { #expect(security?.message.contains("App ID does not match certificate") == true) }
            }
            let level = await headUnit.registeredApps().first { $0.appID == Self.appID }?.hmiLevel
            #expect(level == HMILevel.none)
            // Still registered: plain requests work.
            #expect(try await client.send(ListFiles()).success)
        }
    }

    /// After SDL Core refuses a handshake, the next one on the same connection starts from fresh
    /// TLS state on both ends: the head unit's security manager refuses the first certificate
    /// check, then accepts; the app hears the refusal's reason once and then protects the service.
    @Test func aRefusedHandshakeIsFollowedByAFreshOne() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let trusted = authority.certificate
        let attempts = Locked(0)
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.activationDelay = nil
        configuration.security = { appID in
            // The first check expects another app (refuses), the next this one.
            let attempt = attempts.withLock { count -> Int in
                count += 1
                return count
            }
            return try SDLTLSSecurity(role: .client(SDLCertificateCheck(authority: trusted, expectedSerialNumber: attempt == 1 ? "someone-else" : appID)))
        }
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        try await Self.registered(Self.memory(headUnit), identity: try authority.issue(appID: Self.appID)) { client in
            try await headUnit.activate(appID: Self.appID)
            do {
                _ = try await client.session.startProtectedService(.rpc)
                Issue.record("the first handshake should be refused")
            } catch SDLSessionError.protectionFailed(.rpc, let reason, let security) {
                #expect(security?.code == .invalidCertificate)
                #expect(reason?.hasPrefix("Invalid certificate") == true)
            }
            try await headUnit.activate(appID: Self.appID)
            let second = try await client.session.startProtectedService(.rpc)
            #expect(second.isEncrypted)
            #expect(try await client.send(ListFiles(), encrypted: true).success)
        }
        #expect(attempts.withLock { $0 } == 2)
    }

    @Test func aProtectedVideoServiceStreamsEncryptedFrames() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let headUnit = Self.headUnit(trusting: authority)
        try await Self.registered(Self.memory(headUnit), identity: try authority.issue(appID: Self.appID), types: [.navigation]) { client in
            try await headUnit.activate(appID: Self.appID)
            let protection = try await client.session.startProtectedService(.video, parameters: Self.rawH264)
            #expect(protection.isEncrypted)
            let frame = VideoStreamingTests.frame(key: true, size: 20_000).data
            try await client.session.sendMedia(frame, service: .video, encrypted: true)
            try await client.session.sendMedia(frame, service: .video, encrypted: true)
            // A round trip after them: the emulator handles a connection's frames in order, so
            // both were decrypted (a RAW message is one access unit) before ListFiles' answer.
            #expect(try await client.send(ListFiles()).success)
            let statistics = await headUnit.streamStatistics(appID: Self.appID)[11]
            #expect(statistics?.frames == 2 && statistics?.keyframes == 2)
        }
    }

    @Test func aFailedHandshakeForVideoFallsBackToPlainTextAndSaysSo() async throws {
        let headUnit = Self.headUnit(trusting: try SDLCertificateAuthority.generate(name: "OEM CA"))
        let rogue = try SDLCertificateAuthority.generate(name: "Rogue CA")
        try await Self.registered(Self.memory(headUnit), identity: try rogue.issue(appID: Self.appID), types: [.navigation]) { client in
            try await headUnit.activate(appID: Self.appID)
            let protection = try await client.session.startProtectedService(.video, parameters: Self.rawH264)
            #expect(!protection.isEncrypted)
            #expect(protection.securityFailure?.code == .invalidCertificate)
            // The plain service works.
            try await client.session.sendMedia(VideoStreamingTests.frame(key: true).data, service: .video)
        }
    }

    /// Before the HMI's system time, SDL Core refuses every protected start without a handshake:
    /// EndService(RPC) and a NAK for the RPC service, a NAK (no plain fallback) for audio.
    @Test func withoutTheHMIsSystemTimeProtectionIsRefused() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let headUnit = Self.headUnit(trusting: authority)
        await headUnit.setSystemTimeReady(false)
        let log = Locked<[String]>([])
        try await Self.registered(Self.memory(headUnit), identity: try authority.issue(appID: Self.appID), types: [.navigation]) { client in
            try await headUnit.activate(appID: Self.appID)
            for service in [SDLServiceType.rpc, .audio] {
                do {
                    _ = try await client.session.startProtectedService(service)
                    Issue.record("\(service) was protected without a system time")
                } catch SDLSessionError.protectionFailed(service, let reason, let security) {
                    #expect(reason == "System time provider is not ready")
                    #expect(security == nil)  // no handshake ran
                    log.withLock { $0.append("\(service)") }
                }
            }
            #expect(log.current == ["rpc", "audio"])
            #expect(try await client.send(ListFiles()).success)
            // Once the HMI gave its time, the same request succeeds.
            await headUnit.setSystemTimeReady(true)
            #expect(try await client.session.startProtectedService(.rpc).isEncrypted)
        }
    }

    /// A policy whose `Secure` group requires encryption for AddCommand.
    static let securePolicy = #"""
        {"policy_table": {
          "functional_groupings": {
            "Base": {"rpcs": {
              "ListFiles": {"hmi_levels": ["NONE", "BACKGROUND", "LIMITED", "FULL"]},
              "OnHMIStatus": {"hmi_levels": ["NONE", "BACKGROUND", "LIMITED", "FULL"]},
              "OnPermissionsChange": {"hmi_levels": ["NONE", "BACKGROUND", "LIMITED", "FULL"]}}},
            "Secure": {"encryption_required": true, "rpcs": {
              "AddCommand": {"hmi_levels": ["NONE", "BACKGROUND", "LIMITED", "FULL"]}}}},
          "app_policies": {"default": {"groups": ["Base", "Secure"]}}}}
        """#

    @Test func anRPCThePolicyEncryptsIsRefusedInPlainTextAndAnsweredEncrypted() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let headUnit = Self.headUnit(trusting: authority)
        await headUnit.setPolicy(try SDLHeadUnitPolicy(parsing: Array(Self.securePolicy.utf8)))
        try await Self.registered(Self.memory(headUnit), identity: try authority.issue(appID: Self.appID)) { (client: SDLRPCClient) async throws in
            // OnPermissionsChange says so, at the top and for the item.
            let permissions = client.notifications(OnPermissionsChange.self)
            await headUnit.setPolicy(try SDLHeadUnitPolicy(parsing: Array(Self.securePolicy.utf8)))
            var iterator = permissions.makeAsyncIterator()
            let change = try #require(await iterator.next())
            #expect(change.requireEncryption == true)
            #expect(change.permissionItem.first { $0.rpcName == "AddCommand" }?.requireEncryption == true)
            #expect(change.permissionItem.first { $0.rpcName == "ListFiles" }?.requireEncryption == nil)
            let command = AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Secret"))
            #expect(try await client.send(command).resultCode == .encryptionNeeded)
            #expect(try await client.session.startProtectedService(.rpc).isEncrypted)
            #expect(try await client.send(command, encrypted: true).resultCode == .success)
        }
    }
}

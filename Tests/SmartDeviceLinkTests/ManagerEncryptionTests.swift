import SDLHeadUnit
import SDLRPC
import SDLTLS
import SDLTestSupport
import SmartDeviceLink
import Testing

/// The guide's "Encryption" through `SDLManager`: security managers chosen by the head unit's
/// make, RPCs the policy marks `requireEncryption` sent protected on their own (or refused before
/// sending without a security manager), `protected: true`, and the state stream.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct ManagerEncryptionTests {
    static let appID = "enc-app"

    /// SDL Core's default policy with AddCommand in a group that requires encryption.
    static func headUnit(trusting authority: SDLCertificateAuthority) async -> SDLHeadUnitEmulator {
        let headUnit = SecurityHandshakeTests.headUnit(trusting: authority)
        var policy = SDLHeadUnitPolicy.sdlCoreDefault
        let everywhere: Set<HMILevel> = [.none, .background, .limited, .full]
        policy.groups["Secure"] = ["AddCommand": .init(levels: everywhere, requiresEncryption: true)]
        for entry in ["default", "pre_DataConsent"] { policy.appGroups[entry, default: []].append("Secure") }
        await headUnit.setPolicy(policy)
        return headUnit
    }

    static func configuration(_ headUnit: SDLHeadUnitEmulator, authority: SDLCertificateAuthority?, makes: Set<String> = ["SDL"]) throws
        -> SDLManager.Configuration
    {
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: appID)
        if let authority {
            let identity = try authority.issue(appID: appID)
            configuration.encryption.securityManagers = [SDLSecurityManager(makes: makes) { try SDLTLSSecurity(role: .server(identity)) }]
        }
        return configuration
    }

    static func addCommands(_ headUnit: SDLHeadUnitEmulator) async -> Int {
        await headUnit.recordedRPCs(appID: appID).filter { $0.direction == "in" && $0.functionName == "AddCommand" }.count
    }

    @Test func anRPCThatRequiresEncryptionIsSentProtectedOnItsOwn() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let headUnit = await Self.headUnit(trusting: authority)
        try await withSDLManager(try Self.configuration(headUnit, authority: authority)) { manager in
            let states = manager.encryptionStates()
            try await headUnit.activate(appID: Self.appID)
            #expect(await manager.permissions?.permission(of: "AddCommand").requiresEncryption == true)
            #expect(manager.encryptionState(of: .rpc) == .notStarted)
            let added = try await manager.send(AddCommand(cmdID: 7, menuParams: MenuParams(menuName: "Secret")))
            #expect(added.success)
            #expect(manager.encryptionState(of: .rpc) == .encrypted)
            var seen: [SDLEncryptionState] = []
            for await change in states where change.service == .rpc {
                seen.append(change.state)
                if change.state == .encrypted { break }
            }
            #expect(seen == [.handshaking, .encrypted])
            // An RPC sent protected on request.
            #expect(try await manager.send(ListFiles(), protected: true).success)
        }
    }

    @Test func withoutASecurityManagerTheRPCIsNotSent() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let headUnit = await Self.headUnit(trusting: authority)
        try await withSDLManager(try Self.configuration(headUnit, authority: nil)) { manager in
            try await headUnit.activate(appID: Self.appID)
            do {
                _ = try await manager.send(AddCommand(cmdID: 7, menuParams: MenuParams(menuName: "Secret")))
                Issue.record("an RPC that requires encryption went out in plain text")
            } catch let error as SDLError {
                #expect(error.code == .encryptionNeeded)
            }
            #expect(await Self.addCommands(headUnit) == 0)
            // Sent anyway in plain text (no permission check): the head unit's own answer.
            let plain = try await manager.send(AddCommand(cmdID: 8, menuParams: MenuParams(menuName: "Plain")), protected: false)
            #expect(plain.resultCode == .encryptionNeeded)
        }
    }

    @Test func aSecurityManagerForAnotherMakeIsNotUsed() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let headUnit = await Self.headUnit(trusting: authority)
        try await withSDLManager(try Self.configuration(headUnit, authority: authority, makes: ["OtherMake"])) { manager in
            try await headUnit.activate(appID: Self.appID)
            await #expect(throws: SDLError.self) { try await manager.startRPCEncryption() }
            #expect(await Self.addCommands(headUnit) == 0)
        }
    }

    @Test func protectionAlwaysProtectsBeforeReady() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let headUnit = await Self.headUnit(trusting: authority)
        var configuration = try Self.configuration(headUnit, authority: authority)
        configuration.encryption.rpcProtection = .always
        try await withSDLManager(configuration) { manager in
            #expect(manager.encryptionState(of: .rpc) == .encrypted)
        }
    }

    @Test func aRefusedCertificateIsReportedAsFailed() async throws {
        let headUnit = await Self.headUnit(trusting: try SDLCertificateAuthority.generate(name: "OEM CA"))
        let rogue = try SDLCertificateAuthority.generate(name: "Rogue CA")
        try await withSDLManager(try Self.configuration(headUnit, authority: rogue)) { manager in
            try await headUnit.activate(appID: Self.appID)
            do {
                try await manager.startRPCEncryption()
                Issue.record("a certificate from another CA was accepted")
            } catch let error as SDLError {
                #expect(error.code == .encryptionFailed)
            }
            guard case .failed(let reason) = manager.encryptionState(of: .rpc) else {
                Issue.record("the state is \(manager.encryptionState(of: .rpc))")
                return
            }
            #expect(reason.contains("invalid certificate"))
        }
    }
}

/// Encrypted video (guide "Encryption"): the video service starts protected when the
/// configuration asks, its frames go out as records the head unit decrypts.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct EncryptedVideoTests {
    @Test func requiredProtectionStreamsEncryptedFrames() async throws {
        let authority = try SDLCertificateAuthority.generate()
        let headUnit = SecurityHandshakeTests.headUnit(trusting: authority, activates: true)
        let identity = try authority.issue(appID: VideoStreamingTests.appID)
        let manager = try await VideoStreamingTests.start(headUnit) { configuration in
            configuration.encryption.securityManagers = [SDLSecurityManager { try SDLTLSSecurity(role: .server(identity)) }]
            configuration.encryption.video = .required
            configuration.videoStreaming.formats = [VideoStreamingFormat(protocol: .raw, codec: .h264)]
        }
        try await stopping(manager) { manager in
            let state = await VideoStreamingTests.state(manager, VideoStreamingTests.isStreaming)
            #expect(state?.parameters?.isEncrypted == true)
            #expect(manager.encryptionState(of: .video) == .encrypted)
            // 30 KB: the message goes out in two protected frames, each its own record.
            try await manager.videoStreaming.send(VideoStreamingTests.frame(key: true, size: 30_000))
            try await until { await headUnit.streamStatistics(appID: VideoStreamingTests.appID)[11]?.frames == 1 }
            let statistics = await headUnit.streamStatistics(appID: VideoStreamingTests.appID)[11]
            #expect(statistics?.frames == 1 && statistics?.keyframes == 1)
        }
    }

    @Test func requiredProtectionWithoutASecurityManagerFails() async throws {
        let headUnit = SecurityHandshakeTests.headUnit(trusting: try SDLCertificateAuthority.generate(), activates: true)
        let manager = try await VideoStreamingTests.start(headUnit) { configuration in
            configuration.encryption.video = .required
        }
        try await stopping(manager) { manager in
            let state = await VideoStreamingTests.state(manager) { if case .failed = $0 { true } else { false } }
            guard case .failed(let error)? = state else {
                Issue.record("expected a failure, got \(String(describing: state))")
                return
            }
            #expect(error.code == .encryptionNeeded)
            #expect(await headUnit.streamStatistics(appID: VideoStreamingTests.appID)[11] == nil)
            #expect(manager.encryptionState(of: .video) == .failed(reason: "no security manager serves this head unit"))
        }
    }

    @Test func preferredProtectionRefusedStreamsPlainAndSaysSo() async throws {
        let headUnit = SecurityHandshakeTests.headUnit(trusting: try SDLCertificateAuthority.generate(), activates: true)
        // A certificate from another CA: the handshake fails, SDL Core starts video in plain text.
        let identity = try SDLCertificateAuthority.generate().issue(appID: VideoStreamingTests.appID)
        let manager = try await VideoStreamingTests.start(headUnit) { configuration in
            configuration.encryption.securityManagers = [SDLSecurityManager { try SDLTLSSecurity(role: .server(identity)) }]
            configuration.encryption.video = .preferred
            configuration.videoStreaming.formats = [VideoStreamingFormat(protocol: .raw, codec: .h264)]
        }
        try await stopping(manager) { manager in
            let state = await VideoStreamingTests.state(manager, VideoStreamingTests.isStreaming)
            #expect(state?.parameters?.isEncrypted == false)
            guard case .plainText(let reason) = manager.encryptionState(of: .video) else {
                Issue.record("expected plain text, got \(manager.encryptionState(of: .video))")
                return
            }
            #expect(reason.contains("not signed by the head unit's CA"))
            try await manager.videoStreaming.send(VideoStreamingTests.frame(key: true, size: 3_000))
            try await until { await headUnit.streamStatistics(appID: VideoStreamingTests.appID)[11]?.frames == 1 }
        }
    }
}

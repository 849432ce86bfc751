import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLTestSupport
import SmartDeviceLink
import Testing

/// Every detailed error has a code, and apps match on codes.
@Suite(.timeLimit(.minutes(1)), .runsManagers)
struct SDLErrorTests {
    @Test(arguments: [
        (SDLManagerError.notReady(.connecting) as any Error & Sendable, SDLError.Code.notReady),
        (SDLManagerError.alreadyStopped, .alreadyRunning),
        (SDLManagerError.registrationFailed(.applicationRegisteredAlready, info: nil), .refusedByHeadUnit),
        (SDLManagerError.disallowed(rpc: "Show", level: .none, allowedIn: ["FULL"]), .disallowed),
        (SDLManagerError.connectionLost(.heartbeatTimeout), .connectionClosed),
        (SDLManagerError.unsupportedByHeadUnit(what: "Alert.alertIcon", available: "since RPC 6.0", headUnit: .version(5, 0)), .unsupportedByHeadUnit),
        (SDLManagerError.invalidRequest("Show.mainField1"), .invalidArgument),
        (SDLRPCError.timeout(function: "Show", correlationID: 1, after: .seconds(10)), .timedOut),
        (SDLRPCError.connectionClosed(.transportClosed), .connectionClosed),
        (SDLRPCError.cancelled(function: "Show"), .cancelled),
        (SDLButtonError.wrongAppType(.playPause, needs: .media), .wrongAppType),
        (SDLButtonError.notSent(.disallowed(rpc: "SubscribeButton", level: .none, allowedIn: [])), .disallowed),
        (SDLButtonError.refused(.ok, .rejected, info: nil), .refusedByHeadUnit),
        (SDLButtonError.presetUnavailable(.preset9, available: 8), .unsupportedByHeadUnit),
        (SDLFeatureError.consentDenied(.radio, moduleID: "R0A"), .consentDenied),
        (SDLFeatureError.failed(.timeout(function: "SendLocation", correlationID: 2, after: .seconds(10))), .timedOut),
        (SDLVehicleDataError.itemsNotAllowed(rpc: "GetVehicleData", items: ["gps"]), .disallowed),
        (SDLScreenError.invalid(.notMediaApp), .wrongAppType),
        (SDLScreenError.invalid(.alertNeedsTextOrSpeech), .invalidArgument),
        (SDLScreenError.stopped, .stopped),
        (SDLFileError.failed(name: "a", confirmedBytes: 0, totalBytes: 9, reason: .connectionLost(.transportClosed)), .connectionClosed),
        (SDLFileError.cancelled(name: "a", confirmedBytes: 4, totalBytes: 9), .cancelled),
        (SDLCapabilityError.headUnitTooOld(.navigation, headUnit: .version(4, 4)), .unsupportedByHeadUnit),
        (SDLAppServiceError.refused("GetAppServiceData", .dataNotAvailable, info: nil), .refusedByHeadUnit),
        (CancellationError(), .cancelled),
    ])
    func everyCaseHasACode(error: any Error & Sendable, code: SDLError.Code) {
        let mapped = SDLError(error)
        #expect(mapped.code == code, "\(error)")
        #expect(!mapped.message.isEmpty)
        #expect(mapped.underlying != nil)
        // Converting again keeps it.
        #expect(SDLError(mapped).code == code)
    }

    @Test func theHeadUnitsAnswerTravelsWithIt() {
        let error = SDLError(SDLButtonError.refused(.ok, .rejected, info: "in NONE"))
        #expect(error.resultCode == .rejected)
        #expect(error.info == "in NONE")
        #expect(error.underlying is SDLButtonError)
    }

    @Test func aRealRefusalMatchesOnItsCode() async throws {
        let headUnit = SDLHeadUnitEmulator()
        try await withSDLManager(ManagerLifecycleTests.configuration(headUnit, appID: "codes")) { manager in
            do {
                _ = try await manager.buttons.subscribe(.playPause) { _ in }  // not a media app
                Issue.record("PLAY_PAUSE for a non-media app")
            } catch {
                #expect(SDLError(error).code == .wrongAppType)
            }
        }
    }
}

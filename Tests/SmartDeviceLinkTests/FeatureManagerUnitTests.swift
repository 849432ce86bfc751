import Logging
import SDLRPC
import SDLTestSupport
import Testing

@testable import SmartDeviceLink

/// The phone and navigation managers against a fake context: their capability checks before
/// sending, what they send, and a refusal as the one error model has it. No emulator.
@Suite(.timeLimit(.minutes(1)), .runsManagers)
struct FeatureManagerUnitTests {
    @Test func dialingChecksThePhoneCapabilityAndSendsOnlyDialableCharacters() async throws {
        let context = FakeManagerContext()
        let phone = SDLPhoneManager(context: context, logger: Logger(label: "test"))
        let noPhone = await expectSDLError(SDLFeatureError.self) { try await phone.dial("555 0100") }
        guard case .unsupported? = noPhone else {
            Issue.record("unexpected \(String(describing: noPhone))")
            return
        }
        context.set(SystemCapability(systemCapabilityType: .phoneCall, phoneCapability: PhoneCapability(dialNumberEnabled: false)))
        await expectSDLError(SDLFeatureError.self) { try await phone.dial("555 0100") }
        #expect(context.sent.isEmpty)

        context.set(SystemCapability(systemCapabilityType: .phoneCall, phoneCapability: PhoneCapability(dialNumberEnabled: true)))
        try await phone.dial("+1 (555) 010-2030")
        #expect(context.sent == [#"DialNumber {"number":"+15550102030"}"#])

        context.answer("DialNumber", with: .rejected)  // no phone paired over Bluetooth
        let refused = await #expect(throws: SDLError.self) { try await phone.dial("911") }
        #expect(refused?.code == .refusedByHeadUnit)
        #expect(refused?.resultCode == .rejected)
    }

    @Test func aDestinationNeedsTheNavigationCapability() async throws {
        let context = FakeManagerContext()
        let navigation = SDLNavigationManager(context: context, logger: Logger(label: "test"))
        let destination = SDLDestination(latitude: 42.33, longitude: -83.05, name: "Detroit")
        let refusal = await #expect(throws: SDLError.self) { try await navigation.send(destination) }
        #expect(refusal?.code == .unsupportedByHeadUnit)
        context.set(SystemCapability(systemCapabilityType: .navigation, navigationCapability: NavigationCapability(sendLocationEnabled: true)))
        try await navigation.send(destination)
        #expect(context.sent == [#"SendLocation {"latitudeDegrees":42.33,"locationName":"Detroit","longitudeDegrees":-83.05}"#])
    }

    @Test func aStoppedManagerIsNotReady() async throws {
        let context = FakeManagerContext()
        context.detach()
        let phone = SDLPhoneManager(context: context, logger: Logger(label: "test"))
        let error = await #expect(throws: SDLError.self) { try await phone.dial("1") }
        #expect(error?.code == .notReady)
    }
}

/// The vehicle-data manager against a fake context: what it sends, its checks before sending,
/// and SDL Core's GetVehicleData limit paced on the injected clock. No emulator.
@Suite(.timeLimit(.minutes(1)), .runsManagers)
struct VehicleDataManagerUnitTests {
    @Test func readingsArePacedToFivePerSecondOnTheInjectedClock() async throws {
        let context = FakeManagerContext()
        let clock = ManualClock()
        let vehicleData = SDLVehicleDataManager(context: context, logger: Logger(label: "test"), clock: SDLClock(clock))
        for _ in 0..<5 { _ = try await vehicleData.get(\.speed) }
        #expect(context.sent == Array(repeating: #"GetVehicleData {"speed":true}"#, count: 5))
        let sixth = Task { try await vehicleData.get(\.rpm) }
        await clock.waitForSleepers()
        #expect(context.sent.count == 5)  // the sixth waits for a slot
        clock.advance(by: .seconds(1))
        _ = try await sixth.value
        #expect(context.sent.last == #"GetVehicleData {"rpm":true}"#)
    }

    @Test func checksBeforeSending() async throws {
        let context = FakeManagerContext()
        let vehicleData = SDLVehicleDataManager(context: context, logger: Logger(label: "test"), clock: SDLClock(ManualClock()))
        let noItems = await #expect(throws: SDLError.self) { try await vehicleData.get([]) }
        #expect(noItems?.code == .invalidArgument)
        let specItemAsCustom = await #expect(throws: SDLError.self) { try await vehicleData.get([], custom: ["speed"]) }
        #expect(specItemAsCustom?.code == .invalidArgument)
        #expect(context.sent.isEmpty)
        // OEM custom items go out by name, beside spec items.
        _ = try await vehicleData.get([\.speed], custom: ["OEM-X-Vehicle-Data"])
        #expect(context.sent == [#"GetVehicleData {"OEM-X-Vehicle-Data":true,"speed":true}"#])
        context.detach()
        let stopped = await #expect(throws: SDLError.self) { try await vehicleData.get(\.speed) }
        #expect(stopped?.code == .notReady)
    }
}

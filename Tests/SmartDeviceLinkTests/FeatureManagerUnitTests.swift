import Logging
import SDLRPC
@testable import SmartDeviceLink
import Testing

/// The phone and navigation managers against a fake context: their capability checks before
/// sending, what they send, and a refusal as the one error model has it. No emulator.
@Suite(.timeLimit(.minutes(1)))
struct FeatureManagerUnitTests {
    @Test func dialingChecksThePhoneCapabilityAndSendsOnlyDialableCharacters() async throws {
        let context = FakeManagerContext()
        let phone = SDLPhoneManager(context: context, logger: Logger(label: "test"))
        let noPhone = await expectSDLError(SDLFeatureError.self) { try await phone.dial("555 0100") }
        guard case .unsupported? = noPhone else { Issue.record("unexpected \(String(describing: noPhone))"); return }
        context.set(SystemCapability(systemCapabilityType: .phoneCall, phoneCapability: PhoneCapability(dialNumberEnabled: false)))
        await expectSDLError(SDLFeatureError.self) { try await phone.dial("555 0100") }
        #expect(context.sent.isEmpty)

        context.set(SystemCapability(systemCapabilityType: .phoneCall, phoneCapability: PhoneCapability(dialNumberEnabled: true)))
        try await phone.dial("+1 (555) 010-2030")
        #expect(context.sent == [#"DialNumber {"number":"+15550102030"}"#])

        context.answer("DialNumber", with: .rejected)   // no phone paired over Bluetooth
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

import SDLHeadUnit
import SDLRPC
import SDLRuntime
import SDLStandInHMI
import SmartDeviceLink
import Testing

/// The stand-in HMI over a real WebSocket to the emulator's HMI server, as the driver's hands:
/// the emulator's driver methods (the control API's) go through it and the HMI API.
@Suite(.timeLimit(.minutes(1))) struct StandInHMITests {
    /// The emulator's HMI server, the stand-in HMI connected to it as its driver, and `body`.
    static func withStandIn(_ body: @escaping @Sendable (SDLHeadUnitEmulator, SDLStandInHMI) async throws -> Void) async throws {
        try await HMIServerTests.withHMIServer { emulator, port in
            let standIn = SDLStandInHMI()
            try await withThrowingTaskGroup(of: Void.self) { group in
                let (ready, connected) = AsyncStream<Void>.makeStream()
                group.addTask {
                    // A failed dial ends the wait below at once, and its error the test.
                    defer { connected.finish() }
                    try await standIn.run(url: "ws://127.0.0.1:\(port)") { connected.yield() }
                }
                var readiness = ready.makeAsyncIterator()
                guard await readiness.next() != nil else { return try await group.waitForAll() }
                await emulator.setHMIDriver(standIn)
                try await body(emulator, standIn)
                group.cancelAll()
            }
        }
    }

    @Test func theDriverPlaysThroughTheStandInHMI() async throws {
        try await Self.withStandIn { emulator, standIn in
            let app = try await TestApp.register(to: emulator, appID: "driven", activate: false)
            // Activation is the HMI's SDL.ActivateApp.
            try await emulator.activate(appID: "driven")
            #expect(await app.status { $0.hmiLevel == .full } != nil)

            // A choice shown by the HMI, answered by the driver through it.
            let set = try await app.client.send(
                CreateInteractionChoiceSet(
                    interactionChoiceSetID: 1, choiceSet: [Choice(choiceID: 11, menuName: "Coffee"), Choice(choiceID: 12, menuName: "Tea")]))
            #expect(set.success)
            var shown = standIn.shownRequests.makeAsyncIterator()
            async let performed = app.client.send(
                PerformInteraction(
                    initialText: "Drink?", interactionMode: .manualOnly, interactionChoiceSetIDList: [1], timeout: 30_000))
            #expect(await shown.next() == "UI.PerformInteraction")
            // Not offered on the HMI's screen: refused without an answer.
            await #expect(throws: SDLHeadUnitControlError.invalidAnswer("choice 13 is not offered")) {
                try await emulator.answerInteraction(appID: "driven", .choice(13))
            }
            try await emulator.answerInteraction(appID: "driven", .choice(12))
            let response = try await performed
            #expect(response.success && response.choiceID == 12 && response.triggerSource == .menu)

            // A soft button of the screen the HMI shows.
            #expect(try await app.client.send(Show(mainField1: "Go?", softButtons: [SoftButton(type: .text, text: "Go", softButtonID: 5)])).success)
            var presses = app.client.notifications(OnButtonPress.self).makeAsyncIterator()
            try await emulator.pressSoftButton(appID: "driven", id: 5)
            #expect(await presses.next()?.customButtonID == 5)
            await #expect(throws: SDLHeadUnitControlError.unknownSoftButton(6)) { try await emulator.pressSoftButton(appID: "driven", id: 6) }

            // The car's values are the HMI's: read, and changed by the driver.
            #expect(try await app.client.send(GetVehicleData(speed: true)).speed == 50.5)
            #expect(try await app.client.send(SubscribeVehicleData(speed: true)).success)
            var updates = app.client.notifications(OnVehicleData.self).makeAsyncIterator()
            try await emulator.setVehicleData(.object([.init(key: "speed", value: .float(88.0))]))
            #expect(await updates.next()?.speed == 88.0)
            #expect(try await app.client.send(GetVehicleData(speed: true)).speed == 88.0)
            await app.close()
        }
    }
}

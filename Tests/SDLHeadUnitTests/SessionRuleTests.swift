import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// Resumption after a drop and the language switch, as SDL Core runs them.
@Suite(.timeLimit(.minutes(1))) struct ResumptionTests {
    @Test func reRegisteringWithTheLastHashRestoresMenuAndSubscriptions() async throws {
        let headUnit = TestApp.headUnit()
        let first = try await TestApp.register(to: headUnit, appID: "resume")
        let hashes = first.client.notifications(OnHashChange.self)
        _ = try await first.client.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Play")))
        _ = try await first.client.send(SubscribeButton(buttonName: .ok))
        var iterator = hashes.makeAsyncIterator()
        _ = await iterator.next()
        let hash = try #require(await iterator.next()?.hashID)
        // The cable is pulled: no UnregisterAppInterface.
        try await headUnit.disconnect(appID: "resume")
        guard case .failure(SDLRPCError.connectionClosed(.transportClosed)) = await outcome({ try await first.running.value }) else {
            Issue.record("the app's session should end with the transport")
            return
        }
        let second = try await TestApp.register(to: headUnit, appID: "resume", hashID: hash)
        #expect(second.registration.resultCode == .success)
        #expect(second.registration.info == "Data resumption successful")
        #expect(try await second.client.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Play"))).resultCode == .invalidId)
        #expect(try await second.client.send(SubscribeButton(buttonName: .ok)).resultCode == .ignored)
        await second.close()
    }

    @Test func unregisteringForgetsTheState() async throws {
        let headUnit = TestApp.headUnit()
        let first = try await TestApp.register(to: headUnit, appID: "gone")
        let hashes = first.client.notifications(OnHashChange.self)
        _ = try await first.client.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Play")))
        var iterator = hashes.makeAsyncIterator()
        let hash = try #require(await iterator.next()?.hashID)
        #expect(try await first.client.send(UnregisterAppInterface()).success)
        await first.close()
        let second = try await TestApp.register(to: headUnit, appID: "gone", hashID: hash)
        #expect(second.registration.resultCode == .resumeFailed)
        #expect(try await second.client.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "Play"))).resultCode == .success)
        await second.close()
    }
}

@Suite(.timeLimit(.minutes(1))) struct LanguageTests {
    @Test func aLanguageChangeUnregistersAppsWhichRegisterAgain() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit, appID: "lang")
        let changes = app.client.notifications(OnLanguageChange.self)
        await headUnit.setLanguage(.frCa)
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next()?.language == .frCa)
        guard case .failure(SDLRPCError.connectionClosed(let reason)) = await outcome({ try await app.running.value }) else {
            Issue.record("the session should end")
            return
        }
        #expect(reason == .unregistered(.languageChange))
        #expect(await headUnit.registeredApps().isEmpty)
        let again = try await TestApp.register(to: headUnit, appID: "lang", language: .frCa)
        #expect(again.registration.resultCode == .success)
        #expect(again.registration.language == .frCa)
        #expect(try await again.client.send(ChangeRegistration(language: .frCa, hmiDisplayLanguage: .frCa)).success)
        await again.close()
    }
}

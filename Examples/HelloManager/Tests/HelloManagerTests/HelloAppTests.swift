import HelloManager
import SDLHeadUnit
import SDLRPC
import SDLTransport
import SmartDeviceLink
import Testing

/// The app against the emulator in process: what it sent, and what the driver saw.
@Suite(.timeLimit(.minutes(1)))
struct HelloAppTests {
    @Test func greetsTheDriverAndSaysGoodbyeOnBye() async throws {
        let headUnit = SDLHeadUnitEmulator()
        let events = headUnit.events()
        let (appSide, headUnitSide) = SDLMemoryTransport.pair()
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                await headUnit.serve(headUnitSide)
                return false
            }
            group.addTask {
                try await withSDLManager(HelloApp.configuration(transport: .custom { appSide })) { manager in
                    try await HelloApp.greet(on: manager)
                }
                return true
            }
            // The driver presses Bye once the app has set it.
            for await event in events {
                guard case .requestReceived(let appID, "Show") = event else { continue }
                let shown = await headUnit.recordedRPCs(appID: appID).filter { $0.direction == "in" && $0.functionName == "Show" }
                guard let buttons = shown.last?.parameters?["softButtons"], case .array(let list) = buttons,
                    case .integer(let id)? = list.first?["softButtonID"]
                else { continue }
                try await headUnit.pressSoftButton(appID: appID, id: Int(id))
                break
            }
            // The app returns once it said goodbye; the head unit's side ends with its connection.
            while let appReturned = try await group.next(), !appReturned {}
            group.cancelAll()
        }
        let shows = await headUnit.recordedRPCs(appID: "hello-manager").filter { $0.direction == "in" && $0.functionName == "Show" }
        let texts = shows.compactMap { $0.parameters?["mainField1"] }
        #expect(texts.first == .string("Hello, driver"))
        #expect(texts.last == .string("Goodbye"))
        #expect(await headUnit.requestsReceived(from: "hello-manager").first == "RegisterAppInterface")
    }
}

import Foundation
import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import Testing

/// The default policy against SDL Core 8.2's own: the two OnPermissionsChange of the recorded
/// session (before the policy update, and after it at activation), RPC by RPC.
@Suite(.timeLimit(.minutes(1))) struct CorePermissionsTests {
    typealias Table = [String: (levels: Set<HMILevel>, parameters: Set<String>)]

    static func table(_ notification: OnPermissionsChange) -> Table {
        Dictionary(notification.permissionItem.map { ($0.rpcName, (Set($0.hmiPermissions.allowed), Set($0.parameterPermissions.allowed))) }) { first, _ in first
        }
    }

    /// The OnPermissionsChange notifications SDL Core sent in the recorded session, in order.
    static func recorded() throws -> [Table] {
        let path = SharedData.capturesDirectory + "/sdl-core-8.2.0-session/hu-to-app.bin"
        guard let bytes = FileManager.default.contents(atPath: path) else { try Test.cancel(Comment(rawValue: SharedData.missingCapture(path))) }
        var decoder = SDLFrameDecoder()
        decoder.append(Array(bytes))
        var reassembler = SDLReassembler()
        var tables: [Table] = []
        while let frame = try decoder.nextFrame() {
            guard frame.header.frameType != .control, let message = try reassembler.receive(frame), message.serviceType == .rpc else { continue }
            let payload = try SDLRPCPayload(decoding: message.payload)
            guard payload.functionID == OnPermissionsChange.wireFunctionID else { continue }
            tables.append(Self.table(try SDLJSON.decode(OnPermissionsChange.self, from: payload.json, policy: .lenient).value))
        }
        return tables
    }

    static func emulated(_ headUnit: SDLHeadUnitEmulator, appID: String) async throws -> [Table] {
        try await headUnit.recordedRPCs(appID: appID).filter { $0.direction == "out" && $0.functionName == "OnPermissionsChange" }.map {
            Self.table(try SDLJSON.decode(OnPermissionsChange.self, from: $0.payload.json, policy: .lenient).value)
        }
    }

    @Test func everyRPCCoreListsHasCoresLevelsAndParametersBeforeAndAfterTheUpdate() async throws {
        let core = try Self.recorded()
        try #require(core.count == 2)
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit, appID: "core-policy")
        let emulator = try await Self.emulated(headUnit, appID: app.appID)
        try #require(emulator.count == 2)
        for (stage, (expected, actual)) in zip(["before the update", "after the update"], zip(core, emulator)) {
            for (rpc, permission) in expected {
                #expect(actual[rpc]?.levels == permission.levels, "\(rpc) \(stage)")
                // Core's items are the spec's; the emulator may add its custom vehicle data items.
                #expect(actual[rpc].map { permission.parameters.isSubset(of: $0.parameters) } == true, "\(rpc) parameters \(stage)")
            }
            // What Core does not grant before the update, the emulator does not either.
            for rpc in actual.keys where expected[rpc] == nil && stage == "before the update" {
                #expect(core[1][rpc] == nil, "\(rpc) is granted before the update but Core grants it only after")
            }
        }
        #expect(emulator[1]["SubscribeVehicleData"]?.parameters.contains("vin") == false)
        await app.close()
    }
}

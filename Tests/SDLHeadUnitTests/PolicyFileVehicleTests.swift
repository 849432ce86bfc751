import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SmartDeviceLink
import Testing

/// The policy as SDL Core applies it (SDLHeadUnit's articles "Policies and limits").
@Suite(.timeLimit(.minutes(1))) struct PolicyTests {
    @Test func inNoneTheScreenIsDisallowedAndFilesAreLimited() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit, activate: false)
        for request in [
            AnyRequest(Show(mainField1: "x")), AnyRequest(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "x"))),
            AnyRequest(SDLAlert(alertText1: "x")), AnyRequest(SubscribeButton(buttonName: .ok)), AnyRequest(GetVehicleData(speed: true)),
        ] {
            #expect(try await request.send(app.client) == .disallowed, "\(request.name)")
        }
        for _ in 0..<5 { #expect(try await app.client.send(PutFile(syncFileName: "a", fileType: .binary), bulkData: [1]).resultCode == .success) }
        let sixth = try await app.client.send(PutFile(syncFileName: "a", fileType: .binary), bulkData: [1])
        #expect(sixth.resultCode == .rejected)
        #expect(sixth.info == "Too many requests from the app with HMILevel HMI_NONE")
        await app.close()
    }

    @Test func vehicleDataComesWithThePolicyUpdate() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit, activate: false)
        let changes = app.client.notifications(OnPermissionsChange.self)
        try await headUnit.activate(appID: app.appID)
        var iterator = changes.makeAsyncIterator()
        let update = await iterator.next()
        let vehicle = update?.permissionItem.first { $0.rpcName == "GetVehicleData" }
        #expect(vehicle?.parameterPermissions.allowed.contains("speed") == true)
        #expect(vehicle?.hmiPermissions.allowed.contains(.full) == true)
        await app.close()
    }

    @Test func aPolicyFileDecidesAndEveryChangeReachesTheApp() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit, appID: "limited")
        let changes = app.client.notifications(OnPermissionsChange.self)
        let policy = try SDLHeadUnitPolicy(
            parsing: Array(
                #"""
                {"policy_table": {"functional_groupings": {
                    "Base": {"rpcs": {"Show": {"hmi_levels": ["FULL"]}, "ListFiles": {"hmi_levels": ["NONE", "FULL"]}}},
                    "Speed": {"rpcs": {"GetVehicleData": {"hmi_levels": ["FULL"], "parameters": ["speed"]}}}},
                  "app_policies": {"default": {"groups": ["Base"]}, "limited": {"groups": ["Base", "Speed"]}},
                  "module_config": {"exchange_after_x_ignition_cycles": 100}}}
                """#.utf8))
        await headUnit.setPolicy(policy)
        var iterator = changes.makeAsyncIterator()
        let change = await iterator.next()
        #expect(Set(change?.permissionItem.map(\.rpcName) ?? []) == ["Show", "ListFiles", "GetVehicleData"])
        #expect(try await app.client.send(Show(mainField1: "ok")).resultCode == .success)
        #expect(try await app.client.send(AddCommand(cmdID: 1, menuParams: MenuParams(menuName: "x"))).resultCode == .disallowed)
        let speed = try await app.client.send(GetVehicleData(speed: true, rpm: true))
        #expect(speed.resultCode == .success)
        #expect(speed.speed != nil)
        #expect(speed.rpm == nil)
        #expect(try await app.client.send(GetVehicleData(rpm: true)).resultCode == .disallowed)
        await app.close()
    }

    @Test(arguments: [
        (#"{"app_policies": {}}"#, "functional_groupings"),
        (
            #"{"functional_groupings": {"G": {"rpcs": {"Show": {"hmi_levels": ["FULLL"]}}}}, "app_policies": {}}"#,
            #"functional_groupings.G.rpcs.Show.hmi_levels[0]: "FULLL" is not an HMI level"#
        ),
        (
            #"{"functional_groupings": {}, "app_policies": {"default": {"groups": ["Missing"]}}}"#,
            "app_policies.default.groups[0]: no functional group named Missing"
        ),
        (
            #"{"functional_groupings": {"G": {"rpcs": {"Show": {"hmi_levels": [], "parameters": "speed"}}}}, "app_policies": {}}"#,
            "functional_groupings.G.rpcs.Show.parameters"
        ),
        ("[1, 2", "not JSON"),
    ])
    func aMalformedPolicyNamesThePath(input: String, expected: String) {
        do {
            _ = try SDLHeadUnitPolicy(parsing: Array(input.utf8))
            Issue.record("\(input) should not parse")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
        }
    }
}

/// Type-erased requests, to send a list of different ones.
struct AnyRequest {
    let name: String
    let send: @Sendable (SDLRPCClient) async throws -> SDLResult

    init<R: SDLRequest>(_ request: R) where R.Response: HasResultCode {
        name = R.functionName
        send = { client in try await client.send(request).resultCode }
    }
}

protocol HasResultCode { var resultCode: SDLResult { get } }
extension ShowResponse: HasResultCode {}
extension AddCommandResponse: HasResultCode {}
extension AlertResponse: HasResultCode {}
extension SubscribeButtonResponse: HasResultCode {}
extension GetVehicleDataResponse: HasResultCode {}

@Suite(.timeLimit(.minutes(1))) struct FileTests {
    @Test func chunksAssembleCRCIsCheckedAndSpaceIsReported() async throws {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.fileQuota = 1_000
        let headUnit = SDLHeadUnitEmulator(configuration: configuration)
        let app = try await TestApp.register(to: headUnit, appID: "files")
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        let first = try await app.client.send(
            PutFile(syncFileName: "icon.png", fileType: .graphicPng, offset: 0, length: 300, crc: Int(crc(Array(bytes[0..<100])))),
            bulkData: Array(bytes[0..<100]))
        #expect(first.resultCode == .success)
        #expect(first.spaceAvailable == 700)
        // Not listed until complete.
        #expect(try await app.client.send(ListFiles()).filenames == [])
        let corrupt = try await app.client.send(
            PutFile(syncFileName: "icon.png", fileType: .graphicPng, offset: 100, length: 200, crc: 1), bulkData: Array(bytes[100..<300]))
        #expect(corrupt.resultCode == .corruptedData)
        let rest = try await app.client.send(
            PutFile(syncFileName: "icon.png", fileType: .graphicPng, offset: 100, length: 200, crc: Int(crc(Array(bytes[100..<300])))),
            bulkData: Array(bytes[100..<300]))
        #expect(rest.resultCode == .success)
        #expect(rest.info == "File was downloaded")
        let listed = try await app.client.send(ListFiles())
        #expect(listed.filenames == ["icon.png"])
        #expect(listed.spaceAvailable == 700)
        #expect(await headUnit.file(appID: "files", name: "icon.png") == bytes)
        #expect(
            try await app.client.send(PutFile(syncFileName: "big", fileType: .binary), bulkData: Array(repeating: 0, count: 800)).resultCode == .outOfMemory)
        #expect(try await app.client.send(SetAppIcon(syncFileName: "icon.png")).resultCode == .success)
        #expect(try await app.client.send(SetAppIcon(syncFileName: "missing.png")).resultCode == .invalidData)
        #expect(try await app.client.send(DeleteFile(syncFileName: "missing.png")).resultCode == .rejected)
        let deleted = try await app.client.send(DeleteFile(syncFileName: "icon.png"))
        #expect(deleted.resultCode == .success)
        #expect(deleted.spaceAvailable == 1_000)
        await app.close()
    }

    @Test func persistentFilesOutliveTheRegistration() async throws {
        let headUnit = TestApp.headUnit()
        let first = try await TestApp.register(to: headUnit, appID: "keep")
        _ = try await first.client.send(PutFile(syncFileName: "kept", fileType: .binary, persistentFile: true), bulkData: [1])
        _ = try await first.client.send(PutFile(syncFileName: "lost", fileType: .binary, persistentFile: false), bulkData: [2])
        _ = try await first.client.send(UnregisterAppInterface())
        await first.close()
        let second = try await TestApp.register(to: headUnit, appID: "keep")
        #expect(try await second.client.send(ListFiles()).filenames == ["kept"])
        await second.close()
    }

    func crc(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }
}

@Suite(.timeLimit(.minutes(1))) struct VehicleDataTests {
    @Test func everyItemOfTheSpecHasAValue() async throws {
        let headUnit = TestApp.headUnit()
        let data = await headUnit.vehicleData()
        guard case .object(let members) = data else {
            Issue.record("not an object")
            return
        }
        // The spec's items, then the OEM custom ones.
        #expect(members.map(\.key) == SDLSimulatedVehicle.itemNames + SDLSimulatedVehicle.defaultCustomValues.keys.sorted())
        #expect(SDLSimulatedVehicle.itemNames.count > 30)
        // Every value decodes strictly as the spec's type.
        let response = SDLJSONValue.object(
            [.init(key: "success", value: .bool(true)), .init(key: "resultCode", value: .string("SUCCESS"))]
                + members.filter { SDLSimulatedVehicle.itemNames.contains($0.key) })
        #expect(throws: Never.self) { try SDLJSON.decode(GetVehicleDataResponse.self, from: response.jsonBytes) }
    }

    @Test func getReturnsOnlyWhatWasAskedAndTheRateIsLimited() async throws {
        let clock = ManualClock()
        let headUnit = TestApp.headUnit(clock: clock)
        let app = try await TestApp.register(to: headUnit)
        let response = try await app.client.send(GetVehicleData(speed: true, rpm: true))
        #expect(response.speed == 50.5)
        #expect(response.rpm == 1800)
        #expect(response.fuelLevel == nil)
        for _ in 0..<4 { _ = try await app.client.send(GetVehicleData(speed: true)) }
        #expect(try await app.client.send(GetVehicleData(speed: true)).resultCode == .rejected)
        clock.advance(by: .seconds(1))
        #expect(try await app.client.send(GetVehicleData(speed: true)).resultCode == .success)
        await app.close()
    }

    @Test func subscriptionsAnswerPerItemAndChangesArrive() async throws {
        let headUnit = TestApp.headUnit()
        let app = try await TestApp.register(to: headUnit)
        let updates = app.client.notifications(OnVehicleData.self)
        let first = try await app.client.send(SubscribeVehicleData(speed: true, externalTemperature: true))
        #expect(first.resultCode == .success)
        #expect(first.speed?.resultCode == .success)
        #expect(first.speed?.dataType == .vehicledataSpeed)
        #expect(first.externalTemperature?.dataType == .vehicledataExterntemp)
        let again = try await app.client.send(SubscribeVehicleData(speed: true))
        #expect(!again.success)
        #expect(again.resultCode == .ignored)
        #expect(again.speed?.resultCode == .dataAlreadySubscribed)
        let notSubscribed = try await app.client.send(UnsubscribeVehicleData(rpm: true))
        #expect(notSubscribed.resultCode == .ignored)
        #expect(notSubscribed.rpm?.resultCode == .dataNotSubscribed)
        try await headUnit.setVehicleData("speed", to: .float(88))
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next()?.speed == 88)
        await #expect(throws: SDLSimulatedVehicleError.self) { try await headUnit.setVehicleData("speed", to: .string("fast")) }
        await #expect(throws: SDLSimulatedVehicleError.unknownItem("warpDrive")) { try await headUnit.setVehicleData("warpDrive", to: .bool(true)) }
        await app.close()
    }
}

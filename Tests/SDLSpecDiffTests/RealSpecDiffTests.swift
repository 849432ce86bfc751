import Foundation
import SDLSpec
import SDLSpecDiff
import Testing

/// The published specs, 4.4.0 → 4.5.0 → … → 8.0.0, with changes checked by hand against the XML.
@Suite("Real spec diffs")
struct RealSpecDiffTests {
    static let pairs = zip(TestSupport.specVersions, TestSupport.specVersions.dropFirst()).map { ($0, $1) }

    /// Changes per step. A regression pin: the counts come from the tool, and the tests below
    /// check samples of each step against the XML.
    static let expectedCounts: [String: (total: Int, breaking: Int)] = [
        "4.4.0": (79, 31), "4.5.0": (1, 1), "4.5.1": (147, 42), "5.0.0": (56, 3),
        "5.1.0": (119, 27), "6.0.0": (100, 20), "7.0.0": (79, 13), "7.1.0": (7, 7),
    ]

    @Test("each step diffs cleanly and renders in every format", arguments: pairs)
    func step(old: String, new: String) throws {
        let diff = try TestSupport.realFileDiff(old, new)
        #expect(diff.old.version == SpecVersion(old) && diff.new.version == SpecVersion(new))
        let expected = try #require(Self.expectedCounts[old])
        #expect(
            diff.changes.count == expected.total && diff.breakingCount == expected.breaking,
            "\(old) → \(new): \(diff.changes.count) changes, \(diff.breakingCount) breaking")
        // Verdicts always cite a rule and give a reason; paths name their owner.
        for change in diff.changes {
            #expect(!change.verdict.reason.isEmpty)
            #expect((change.kind == .param || change.kind == .element) == (change.path.member != nil))
        }
        let again = try TestSupport.realFileDiff(old, new)
        for format in DiffFormat.allCases {
            #expect(diff.rendered(as: format) == again.rendered(as: format))
        }
        let json = try JSONSerialization.jsonObject(with: Data(diff.rendered(as: .json).utf8))
        #expect((json as? [Any])?.count == diff.changes.count)
    }

    @Test("versions rebuilt inside 8.0.0 agree with diffing the files", arguments: pairs)
    func historyAgreesWithFiles(old: String, new: String) throws {
        let files = Set(try TestSupport.realFileDiff(old, new).rows)
        let rebuilt = Set(try TestSupport.realHistoryDiff(in: "8.0.0", from: old, to: new).rows)
        #expect(rebuilt.subtracting(files).isEmpty, "only inside 8.0.0: \(rebuilt.subtracting(files).sorted())")
        // 6.0.0 made these optional, and added SystemRequest(response).info, without recording
        // `since` or `<history>`; a later file cannot tell they changed.
        let unrecorded: Set<String> =
            old != "5.1.0"
            ? []
            : [
                "changed param DiagnosticMessage(response).messageDataResult [mandatory: true → false] breaking P4",
                "changed param GetDTCs(response).ecuHeader [mandatory: true → false] breaking P4",
                "changed param GetInteriorVehicleData(response).moduleData [mandatory: true → false] breaking P4",
                "changed param GetSystemCapability(response).systemCapability [mandatory: true → false] breaking P4",
                "changed param SetInteriorVehicleData(response).moduleData [mandatory: true → false] breaking P4",
                "added param SystemRequest(response).info [optional String] compatible P1",
            ]
        #expect(files.subtracting(rebuilt) == unrecorded, "only in the files: \(files.subtracting(rebuilt).sorted())")
    }

    @Test("8.0.0 against 7.1.0: the tire status params became optional, breaking receivers")
    func eightAgainstSevenOne() throws {
        // 8.0.0 lines 2200-2240: each TireStatus param has mandatory="false" since="8.0" and a
        // history entry mandatory="true" since="2.0" until="8.0". Nothing else changed but text.
        let names = ["innerLeftRear", "innerRightRear", "leftFront", "leftRear", "pressureTelltale", "rightFront", "rightRear"]
        let expected = names.map { "changed param TireStatus.\($0) [mandatory: true → false] breaking P4" }
        let files = try TestSupport.realFileDiff("7.1.0", "8.0.0")
        #expect(files.rows == expected)
        #expect(
            files.changes.allSatisfy {
                $0.verdict.reason
                    == "TireStatus is received by apps (e.g. in GetVehicleData(response).tirePressure): they can no longer count on it being present"
            })
        // The same, rebuilt from inside 8.0.0 alone.
        #expect(try TestSupport.realHistoryDiff(in: "8.0.0", from: "7.1", to: "8.0").rows == expected)
        // And 8.0.0 has nothing between 8.0 and itself.
        #expect(try TestSupport.realHistoryDiff(in: "8.0.0", from: "8.0", to: "8.0.0").changes.isEmpty)
    }

    @Test("7.1.0 against 7.0.0: a new notification, deprecations of a function, a param and an element")
    func sevenOneAgainstSeven() throws {
        let rows = try TestSupport.realFileDiff("7.0.0", "7.1.0").rows
        // 7.1.0: <function name="OnAppCapabilityUpdated" ... messagetype="notification" since="7.1">.
        #expect(rows.contains("added function OnAppCapabilityUpdated(notification) [1 param] compatible F1"))
        // <function name="EncodedSyncPData" ... deprecated="true" since="7.1">, history 1.0..7.1.
        #expect(rows.contains("deprecated function EncodedSyncPData(request) [deprecated] compatible G2"))
        #expect(rows.contains("deprecated function EncodedSyncPData(response) [deprecated] compatible G2"))
        // Show: <param name="mediaClock" ... deprecated="true" since="7.1">.
        #expect(rows.contains("deprecated param Show(request).mediaClock [deprecated] compatible G2"))
        // TextFieldName: <element name="mediaClock" deprecated="true" since="7.1">.
        #expect(rows.contains("deprecated element TextFieldName.mediaClock [deprecated] compatible G2"))
        // TextFieldName is received in display capabilities, so a new name breaks receivers.
        #expect(rows.contains("added element TextFieldName.menuCommandSecondaryText [enum element] breaking E1"))
        // New optional vehicle data, e.g. GetVehicleData(response).climateData since="7.1".
        #expect(rows.contains("added param GetVehicleData(response).climateData [optional ClimateData] compatible P1"))
        #expect(rows.contains("added struct ClimateData [3 params] compatible T1"))
    }

    @Test("7.0.0 against 6.0.0: elements removed through until")
    func removalThroughUntil() throws {
        // 6.0.0 has <element name="VEHICLEDATA_FUELLEVEL" />; 7.0.0 has until="7.0" on it, so it
        // is not part of 7.0.0 itself.
        let diff = try TestSupport.realFileDiff("6.0.0", "7.0.0")
        let removed = diff.rows.filter { $0.hasPrefix("removed ") }
        #expect(
            removed == [
                "removed element VehicleDataType.VEHICLEDATA_FUELLEVEL [enum element] breaking G1",
                "removed element VehicleDataType.VEHICLEDATA_FUELLEVEL_STATE [enum element] breaking G1",
                "removed element VehicleDataType.VEHICLEDATA_PRNDL [enum element] breaking G1",
            ])
        // GetVehicleData(request).fuelLevel: deprecated="true" since="7.0", history 2.0..7.0.
        #expect(diff.rows.contains("deprecated param GetVehicleData(request).fuelLevel [deprecated] compatible G2"))
    }

    @Test("4.5.1 against 4.5.0: one dropped default that changes what omitting the param means")
    func defaultDropped() throws {
        // 4.5.0: <param name="subscribe" type="Boolean" mandatory="false" defvalue="false">;
        // 4.5.1 drops defvalue: "If subscribe is not included, the subscription status … remain[s] unchanged."
        #expect(
            try TestSupport.realFileDiff("4.5.0", "4.5.1").rows == [
                "changed param GetInteriorVehicleData(request).subscribe [defvalue: false → none] breaking P10"
            ])
    }

    @Test("5.0.0 against 4.5.1: GPSData loosened for receivers; Choice loosened for senders")
    func boundsAndMandatory() throws {
        let rows = try TestSupport.realFileDiff("4.5.1", "5.0.0").rows
        // 8.0.0 history of GPSData.pdop: maxvalue="10" mandatory="true" since="2.0" until="5.0".
        #expect(rows.contains("changed param GPSData.pdop [mandatory: true → false] breaking P4"))
        #expect(rows.contains("changed param GPSData.pdop [maxvalue: 10 → 1000] breaking P8"))
        // Choice is sent (CreateInteractionChoiceSet); vrCommands mandatory="true" until="5.0".
        #expect(rows.contains("changed param Choice.vrCommands [mandatory: true → false] compatible P4"))
        // RadioControlData is sent and received: a higher maximum breaks the receiving side.
        // hdChannel: maxvalue 3 → 7 in 5.0.0, then minvalue 1 → 0 in 6.0.0.
        let hd = try TestSupport.realFileDiff("4.5.1", "5.0.0").changes(at: "RadioControlData.hdChannel")
        #expect(hd.map(\.row) == ["changed param RadioControlData.hdChannel [maxvalue: 3 → 7] breaking P8"])
        let hd6 = try TestSupport.realFileDiff("5.0.0", "6.0.0").changes(at: "RadioControlData.hdChannel")
        #expect(hd6.map(\.row) == ["changed param RadioControlData.hdChannel [minvalue: 1 → 0] breaking P8"])
        #expect(hd.allSatisfy { $0.verdict.reason.hasPrefix("RadioControlData is received by apps") })
    }

    @Test("the whole chain at once: 4.4.0 against 8.0.0")
    func wholeChain() throws {
        let diff = try TestSupport.realFileDiff("4.4.0", "8.0.0")
        // CancelInteraction is not in 4.4.0; 8.0.0 has it with params cancelID and functionID.
        #expect(diff.rows.contains("added function CancelInteraction(request) [2 params] compatible F1"))
        #expect(diff.rows.contains("changed param TireStatus.leftFront [mandatory: true → false] breaking P4"))
        // In 4.4.0 as <element name="VEHICLEDATA_FUELLEVEL" />, until="7.0" in 8.0.0.
        #expect(diff.rows.contains("removed element VehicleDataType.VEHICLEDATA_FUELLEVEL [enum element] breaking G1"))
    }
}

import SDLSpec
import SDLSpecDiff
import Testing

/// Two versions rebuilt from one spec through since, until, deprecated, removed and history.
@Suite("Versions inside one spec")
struct HistoryTests {
    private func diff(from: String, to: String) throws -> SpecDiff {
        let interface = try TestSupport.historySpec().interface
        return SpecDiff(old: interface, at: SpecVersion(from), new: interface, at: SpecVersion(to))
    }

    @Test("1.0 → 2.0: until, since, history shells, param history, removed")
    func oneToTwo() throws {
        #expect(
            try diff(from: "1.0", to: "2.0").rows == [
                "added function New(request) [0 params] compatible F1",
                "added function New(response) [0 params] compatible F1",
                "removed function Old(request) [0 params] breaking G1",
                "removed function Old(response) [0 params] breaking G1",
                // A shell entry (since 1.0 until 2.0, no params) before the deprecated definition.
                "deprecated struct Shell [deprecated] compatible G2",
                "deprecated enum Legacy [deprecated] compatible G2",
                // removed="true" since="2.0", with its 1.0 form in history.
                "removed param Read(request).dropped [optional String] breaking G1",
                // Two history entries: maxvalue 3 in 1.0..2.0, 7 in 2.0..3.0; a request, so looser is fine.
                "changed param Read(request).limit [maxvalue: 3 → 7] compatible P8",
                "added element FunctionID.NewID [value 2] compatible G3",
                "removed element FunctionID.OldID [value 1] breaking G1",
                "added element Status.AUTO [enum element] compatible E1",
            ])
    }

    @Test("2.0 → 3.0: element until, element history, a history entry with its own params")
    func twoToThree() throws {
        #expect(
            try diff(from: "2.0", to: "3.0").rows == [
                "deprecated param Read(request).limit [deprecated] compatible G2",
                "changed param Read(request).limit [maxvalue: 7 → 10] compatible P8",
                "changed param Rebuilt.a [mandatory: true → false] compatible P4",
                "removed param Rebuilt.legacy [optional String] breaking G1",
                "added param Shell.b [optional Integer] compatible P1",
                "deprecated element Status.IDLE [deprecated] compatible G2",
                "removed element Status.OFF [enum element] breaking G1",
            ])
    }

    @Test("a version compared with itself has no changes", arguments: ["1.0", "2.0", "3.0"])
    func sameVersion(version: String) throws {
        #expect(try diff(from: version, to: version).changes.isEmpty)
    }

    @Test("going back in time reverses the changes")
    func backwards() throws {
        let back = try diff(from: "2.0", to: "1.0")
        #expect(back.rows.contains("added param Read(request).dropped [optional String] compatible P1"))
        #expect(back.rows.contains("changed param Read(request).limit [maxvalue: 7 → 3] breaking P7"))
        #expect(back.rows.contains("removed element Status.AUTO [enum element] breaking G1"))
        #expect(back.rows.contains("changed struct Shell [no longer deprecated] compatible G2"))
    }

    @Test("skipping a version gives the net change")
    func skipping() throws {
        let rows = try diff(from: "1.0", to: "3.0").rows
        #expect(rows.contains("changed param Read(request).limit [maxvalue: 3 → 10] compatible P8"))
        // OFF exists at 1.0 and is gone at 3.0; AUTO is new by 3.0.
        #expect(rows.contains("removed element Status.OFF [enum element] breaking G1"))
        #expect(rows.contains("added element Status.AUTO [enum element] compatible E1"))
    }

    @Test("the snapshot at a version holds each definition in its form then")
    func snapshots() throws {
        let interface = try TestSupport.historySpec().interface
        let v1 = APISnapshot(interface, at: SpecVersion("1.0"))
        #expect(v1.functions.keys.map(\.name).sorted() == ["Old", "Old", "Read", "Read"])
        #expect(v1.structs["Shell"]?.availability.deprecated == false)
        #expect(v1.structs["Shell"]?.parameters.map(\.name) == ["a"], "a shell entry keeps the current params")
        #expect(v1.structs["Rebuilt"]?.parameters.map(\.name) == ["a", "legacy"])
        #expect(v1.enums["Status"]?.elements.map(\.name) == ["ON", "OFF", "IDLE"])

        let v3 = APISnapshot(interface, at: SpecVersion("3.0"))
        #expect(v3.enums["Status"]?.elements.map(\.name) == ["ON", "AUTO", "IDLE"])
        #expect(v3.enums["FunctionID"]?.elements.map(\.name) == ["NewID", "ReadID"])
        let read = try #require(v3.functions[.init(name: "Read", messageType: .request)])
        #expect(read.parameters.map(\.name) == ["shell", "rebuilt", "status", "legacy", "limit"])

        // Without a version every definition counts as written, except removed ones.
        let asWritten = APISnapshot(interface, at: nil)
        #expect(asWritten.enums["Status"]?.elements.count == 4)
        #expect(asWritten.functions[.init(name: "Read", messageType: .request)]?.parameters.map(\.name).contains("dropped") == false)
    }
}

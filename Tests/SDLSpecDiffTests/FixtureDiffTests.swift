import Foundation
import SDLSpec
import Testing

@testable import SDLSpecDiff

/// Hand-written spec pairs, one per area, with every change and verdict spelled out.
@Suite("Fixture diffs")
struct FixtureDiffTests {
    @Test("functions: added, removed, deprecated, moved to another ID, per message type")
    func functions() throws {
        let diff = try TestSupport.fixtureDiff("functions")
        #expect(
            diff.rows == [
                "deprecated function Alert(request) [deprecated] compatible G2",
                "deprecated function Alert(response) [deprecated] compatible G2",
                "added function CancelInteraction(request) [2 params] compatible F1",
                "added function CancelInteraction(response) [0 params] compatible F1",
                "changed function OnPing(notification) [functionID: OnPingID → OnPongID] breaking F2",
                "removed function Slider(request) [1 param] breaking G1",
                "removed function Slider(response) [0 params] breaking G1",
                "changed element FunctionID.AlertID [value: 2 → 12] breaking E2",
                // No message has a FunctionID param, so its new elements reach no app.
                "added element FunctionID.CancelInteractionID [value 5] compatible G3",
                "added element FunctionID.OnPongID [value 6] compatible G3",
                "removed element FunctionID.SliderID [value 3] breaking G1",
            ])
        #expect(diff.breakingCount == 5)
        #expect(diff.old.version == SpecVersion("1.0.0") && diff.new.version == SpecVersion("2.0.0"))
    }

    @Test("structs and enums: added, removed, deprecated, no longer deprecated")
    func types() throws {
        let diff = try TestSupport.fixtureDiff("types")
        #expect(
            diff.rows == [
                "removed struct OldThing [1 param] breaking G1",
                "deprecated struct Point [deprecated] compatible G2",
                "added struct Rect [2 params] compatible T1",
                "changed struct Size [no longer deprecated] compatible G2",
                "deprecated enum Color [deprecated] compatible G2",
                "added enum Mood [2 elements] compatible T1",
                "removed enum Shape [1 element] breaking G1",
            ])
    }

    @Test("params: every attribute, judged by direction")
    func params() throws {
        let diff = try TestSupport.fixtureDiff("params")
        #expect(
            diff.rows == [
                // Both: sent and received, so the stricter verdict each time.
                "changed param Both.becomesOptional [mandatory: true → false] breaking P4",
                "changed param Both.loosened [maxvalue: 100 → 200] breaking P8",
                "changed param Both.tightened [maxvalue: 100 → 50] breaking P7",
                // Inner is only reached through Sent.
                "changed param Inner.label [maxlength: 100 → 50] breaking P7",
                "changed param OnEvent(notification).value [maxvalue: 1 → 2] breaking P8",
                "changed param Received.becomesMandatory [mandatory: false → true] compatible P3",
                "changed param Received.becomesOptional [mandatory: true → false] breaking P4",
                "changed param Received.loosened [maxvalue: 100 → 200] breaking P8",
                "added param Received.required [mandatory String] compatible P2",
                "changed param Received.tightened [maxvalue: 100 → 50] compatible P7",
                "changed param Sent.becomesMandatory [mandatory: false → true] breaking P3",
                "changed param Sent.becomesOptional [mandatory: true → false] compatible P4",
                "removed param Sent.gone [optional String] breaking G1",
                "changed param Sent.loosened [maxvalue: 100 → 200] compatible P8",
                "added param Sent.required [mandatory String] breaking P2",
                "changed param Sent.tightened [maxvalue: 100 → 50] breaking P7",
                "changed param Set(request).count [type: Integer → Float] breaking P5",
                "added param Set(request).extraMandatory [mandatory String] breaking P2",
                "added param Set(request).extraOptional [optional String] compatible P1",
                "changed param Set(request).fixed [defvalue: 1 → 2] compatible P10",
                "changed param Set(request).items [minsize: 1 → 2] breaking P7",
                "changed param Set(request).items [maxsize: 10 → none] compatible P8",
                "changed param Set(request).level [defvalue: none → 3] compatible P9",
                "changed param Set(request).mode [defvalue: fast → slow] breaking P10",
                "changed param Set(request).name [minlength: 1 → 0] compatible P8",
                "changed param Set(request).name [maxlength: 100 → 50] breaking P7",
                "deprecated param Set(request).oldStyle [deprecated] compatible G2",
                "changed param Set(request).revived [no longer deprecated] compatible G2",
                "changed param Set(request).speed [defvalue: 1 → none] breaking P10",
                "changed param Set(request).tag [array: false → true] breaking P6",
                "added param Set(response).extraMandatory [mandatory String] compatible P2",
                "changed param Unused.becomesOptional [mandatory: true → false] compatible G3",
                "changed param Unused.tightened [maxvalue: 100 → 50] compatible G3",
            ])
    }

    @Test("enum elements: added by direction, removed, deprecated, renumbered; hexvalue equals value")
    func elements() throws {
        let diff = try TestSupport.fixtureDiff("elements")
        #expect(
            diff.rows == [
                "changed element Coded.HIGH [value: 32 → 33] breaking E2",
                "deprecated element Coded.OLD [deprecated] compatible G2",
                "added element ReceivedChoice.B [enum element] breaking E1",
                "removed element SentChoice.B [enum element] breaking G1",
                "added element SentChoice.C [enum element] compatible E1",
                "added element SharedChoice.B [enum element] breaking E1",
                "added element UnusedChoice.B [enum element] compatible G3",
            ])
        // Coded.LOW went from value="16" to hexvalue="10": the same number, so no change.
        #expect(diff.changes(at: "Coded.LOW").isEmpty)
    }

    @Test("reasons name the direction and a path that shows it")
    func reasonsNameTheDirection() throws {
        let params = try TestSupport.fixtureDiff("params")
        let inner = try #require(params.changes(at: "Inner.label").first)
        #expect(inner.verdict.reason == "Inner is sent by apps (e.g. in Set(request).sent.inner): values that were valid before may now be rejected")
        // A struct used both ways cites only the side that breaks.
        let both = try #require(params.changes(at: "Both.tightened").first)
        #expect(both.verdict.reason.hasPrefix("Both is sent by apps (e.g. in Set(request).both)"))
        #expect(!both.verdict.reason.contains("received"))
        // A compatible change in a struct used both ways explains both sides.
        let elements = try TestSupport.fixtureDiff("elements")
        let shared = try #require(elements.changes(at: "SharedChoice.B").first)
        #expect(shared.verdict.reason == "SharedChoice is received by apps (e.g. in OnPicked(notification).pair.choice): they may get a value they do not know")
        let sentOnly = try #require(elements.changes(at: "SentChoice.C").first)
        #expect(sentOnly.verdict.reason == "SentChoice is sent by apps (e.g. in Pick(request).choice): they gain a value they may send")
    }

    @Test("a spec compared with itself has no changes", arguments: ["functions", "types", "params", "elements"])
    func identity(name: String) throws {
        let spec = try TestSupport.load("\(TestSupport.fixturesDirectory)/\(name)/new.xml")
        let diff = SpecDiff(old: spec.interface, at: spec.interface.version, new: spec.interface, at: spec.interface.version)
        #expect(diff.changes.isEmpty)
        #expect(!diff.hasBreakingChanges)
    }

    @Test("reversing a diff swaps added and removed", arguments: ["functions", "types", "params", "elements"])
    func reversed(name: String) throws {
        let old = try TestSupport.load("\(TestSupport.fixturesDirectory)/\(name)/old.xml").interface
        let new = try TestSupport.load("\(TestSupport.fixturesDirectory)/\(name)/new.xml").interface
        let forward = SpecDiff(old: old, at: old.version, new: new, at: new.version)
        let backward = SpecDiff(old: new, at: new.version, new: old, at: old.version)
        #expect(forward.changes.count == backward.changes.count)
        let added = Set(forward.changes.filter { $0.action == .added }.map(\.path))
        let removedBack = Set(backward.changes.filter { $0.action == .removed }.map(\.path))
        #expect(added == removedBack)
    }

    @Test("usage is found through nested structs, both ways, in both versions")
    func usage() throws {
        let old = try TestSupport.load("\(TestSupport.fixturesDirectory)/params/old.xml").interface
        let new = try TestSupport.load("\(TestSupport.fixturesDirectory)/params/new.xml").interface
        let map = UsageMap([APISnapshot(new, at: nil), APISnapshot(old, at: nil)])
        #expect(map.usage(ofStruct: "Inner") == Usage(sentVia: "Set(request).sent.inner"))
        #expect(map.usage(ofStruct: "Received") == Usage(receivedVia: "Set(response).received"))
        #expect(map.usage(ofStruct: "Both") == Usage(sentVia: "Set(request).both", receivedVia: "Set(response).both"))
        #expect(map.usage(ofStruct: "Unused").isUnused)
    }
}

/// The rules as functions, apart from any spec.
@Suite("Rules")
struct RuleTests {
    @Test func boundsTightenAndLoosen() {
        #expect(Bound.maxValue.isTightened(from: 10, to: 5))
        #expect(!Bound.maxValue.isTightened(from: 10, to: 20))
        #expect(Bound.maxValue.isTightened(from: nil, to: 20), "a new bound admits fewer values")
        #expect(!Bound.maxValue.isTightened(from: 20, to: nil), "a dropped bound admits more")
        #expect(Bound.minLength.isTightened(from: 0, to: 1))
        #expect(!Bound.minSize.isTightened(from: 2, to: 1))
        #expect(Bound.minValue.isTightened(from: nil, to: -5))
    }

    @Test func everyRuleIsWrittenInRulesMarkdown() throws {
        let rules = try String(contentsOfFile: TestSupport.packageRoot + "/README.md", encoding: .utf8)
        for rule in Rule.allCases {
            #expect(rules.contains("| \(rule.id) |"), "README.md's compatibility rules have no row for \(rule.id)")
        }
    }

    @Test func directionDecidesOnlyDirectionalRules() {
        let owner = ChangePath.Owner.structure("S")
        let sent = Usage(sentVia: "F(request).s")
        let received = Usage(receivedVia: "F(response).s")
        #expect(Rules.addedParam(isMandatory: true, owner: owner, usage: sent).isBreaking)
        #expect(!Rules.addedParam(isMandatory: true, owner: owner, usage: received).isBreaking)
        #expect(!Rules.addedParam(isMandatory: false, owner: owner, usage: sent).isBreaking)
        #expect(Rules.addedElement(owner: owner, usage: received).isBreaking)
        #expect(Rules.addedElement(owner: owner, usage: Usage()).rule == .g3)
        #expect(Rules.changedBound(.maxLength, old: 10, new: 5, owner: owner, usage: sent).rule == .p7)
        #expect(Rules.changedBound(.maxLength, old: 10, new: 50, owner: owner, usage: received).isBreaking)
        #expect(Rules.changedDefault(old: "a", new: "b", isMandatory: false).isBreaking)
        #expect(!Rules.changedDefault(old: nil, new: "b", isMandatory: false).isBreaking)
        for kind in Change.Kind.allCases { #expect(Rules.removed(kind).isBreaking) }
    }
}

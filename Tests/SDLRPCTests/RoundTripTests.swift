import PropertyBased
import SDLRPC
import SDLRuntime
import Testing

/// Property: for every generated struct and message, random valid instances decode without
/// issues, validate clean, and survive encode → decode unchanged in JSON and in BSON.
@Suite(.timeLimit(.minutes(2))) struct RoundTripTests {
    static let structTypes: [any SDLCodable.Type] = MobileAPI.structures.compactMap { $0 as? any SDLCodable.Type }
    static let messageTypes: [any SDLMessage.Type] = MobileAPI.requests + MobileAPI.responses + MobileAPI.notifications

    @Test func everyStructureIsCodable() {
        #expect(Self.structTypes.count == MobileAPI.structures.count)
    }

    @Test(arguments: RoundTripTests.structTypes.map(TypeBox.init))
    func structsRoundTrip(_ box: TypeBox) async {
        await roundTrip(box.type)
    }

    @Test(arguments: RoundTripTests.messageTypes.map { TypeBox($0) })
    func messagesRoundTrip(_ box: TypeBox) async {
        await roundTrip(box.type)
    }

    private func roundTrip<T: SDLCodable>(_ type: T.Type) async {
        await propertyCheck(count: 100, input: RandomMessages.shared.generator(for: T.structInfo)) { json in
            let bytes = json.jsonBytes
            let decoded: T
            do {
                let result = try SDLJSON.decode(T.self, from: bytes)
                #expect(result.warnings.isEmpty, "\(result.warnings)")
                #expect(result.unknownKeys.isEmpty)
                decoded = result.value
            } catch {
                Issue.record("valid JSON did not decode: \(error)\n\(json.jsonString)")
                return
            }
            #expect(SDLValidator.validate(decoded).isEmpty)

            let jsonAgain = try SDLJSON.decode(T.self, from: try SDLJSON.encode(decoded)).value
            #expect(jsonAgain == decoded, "JSON round trip changed \(T.structInfo.name)")

            let bsonAgain = try SDLBSON.decode(T.self, from: try SDLBSON.encode(decoded)).value
            #expect(bsonAgain == decoded, "BSON round trip changed \(T.structInfo.name)")
        }
    }
}

/// A metatype as a test argument, named after its spec name in the test report.
struct TypeBox: Sendable, CustomTestStringConvertible {
    let type: any SDLCodable.Type
    init(_ type: any SDLCodable.Type) { self.type = type }
    var testDescription: String { "\(type.structInfo.name)" + ((type as? any SDLMessage.Type).map { " (\($0.messageType.rawValue))" } ?? "") }
}

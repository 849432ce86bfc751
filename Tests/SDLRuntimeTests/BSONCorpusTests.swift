import Foundation
import SDLRuntime
import Testing

/// Byte identity with pymongo: `Scripts/bson_corpus.py` writes `Fixtures/bson-corpus.jsonl`,
/// each line a typed description of a document plus the bytes `bson.encode` made of it. CI
/// regenerates the file and diffs it, so these bytes are what the current pymongo writes.
@Suite struct BSONCorpusTests {
    struct Entry: Decodable, CustomTestStringConvertible {
        let name: String
        let doc: CorpusDocument
        let bson: String

        var testDescription: String { name }
    }

    /// `[[key, value], ...]` in order.
    struct CorpusDocument: Decodable {
        let document: BSONDocument

        init(from decoder: any Decoder) throws {
            var pairs = try decoder.unkeyedContainer()
            var elements: [BSONDocument.Element] = []
            while !pairs.isAtEnd {
                var pair = try pairs.nestedUnkeyedContainer()
                let key = try pair.decode(String.self)
                elements.append(BSONDocument.Element(key: key, value: try pair.decode(CorpusValue.self).value))
            }
            document = BSONDocument(elements)
        }
    }

    /// `{"t": type, "v": value, "s": subtype}`; see the script's header for the forms.
    struct CorpusValue: Decodable {
        let value: BSONValue

        enum CodingKeys: String, CodingKey { case t, v, s }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            switch try container.decode(String.self, forKey: .t) {
            case "double":
                let text = try container.decode(String.self, forKey: .v)
                guard text.utf8.count == 16, let bits = UInt64(text, radix: 16) else {
                    throw DecodingError.dataCorruptedError(forKey: .v, in: container, debugDescription: "not 16 hex digits")
                }
                value = .double(Double(bitPattern: bits))
            case "string": value = .string(try container.decode(String.self, forKey: .v))
            case "document": value = .document(try container.decode(CorpusDocument.self, forKey: .v).document)
            case "array": value = .array(try container.decode([CorpusValue].self, forKey: .v).map(\.value))
            case "binary":
                value = .binary(
                    subtype: try container.decode(UInt8.self, forKey: .s), bytes: hex(try container.decode(String.self, forKey: .v)))
            case "bool": value = .bool(try container.decode(Bool.self, forKey: .v))
            case "null": value = .null
            case "int32": value = .int32(try container.decode(Int32.self, forKey: .v))
            case "int64": value = .int64(try container.decode(Int64.self, forKey: .v))
            case let other:
                throw DecodingError.dataCorruptedError(forKey: .t, in: container, debugDescription: "unknown type \(other)")
            }
        }
    }

    static let entries: [Entry] = {
        do {
            let text = String(decoding: try Fixtures.bytes("bson-corpus.jsonl"), as: UTF8.self)
            let decoder = JSONDecoder()
            return try text.split(separator: "\n").map { try decoder.decode(Entry.self, from: Data($0.utf8)) }
        } catch {
            Issue.record("cannot read the corpus: \(error)")
            return []
        }
    }()

    @Test func corpusIsLargeAndCoversEveryType() {
        #expect(Self.entries.count >= 200)
        var types: Set<String> = []
        var subtypes: Set<UInt8> = []
        func visit(_ value: BSONValue) {
            switch value {
            case .document(let document):
                types.insert("document")
                document.elements.forEach { visit($0.value) }
            case .array(let values):
                types.insert("array")
                values.forEach(visit)
            case .binary(let subtype, _):
                types.insert("binary")
                subtypes.insert(subtype)
            case .double: types.insert("double")
            case .string: types.insert("string")
            case .bool: types.insert("bool")
            case .null: types.insert("null")
            case .int32: types.insert("int32")
            case .int64: types.insert("int64")
            }
        }
        Self.entries.forEach { visit(.document($0.doc.document)) }
        #expect(types == ["document", "array", "binary", "double", "string", "bool", "null", "int32", "int64"])
        #expect(subtypes.isSuperset(of: [0, 1, 2, 3, 4, 5, 0x80, 0xFF]))
    }

    @Test(arguments: entries)
    func encodesExactlyAsPymongo(_ entry: Entry) {
        let encoded = entry.doc.document.encoded()
        #expect(hexString(encoded) == entry.bson)
    }

    @Test(arguments: entries)
    func decodesPymongoBytes(_ entry: Entry) throws {
        let decoded = try BSONDocument(decoding: hex(entry.bson))
        #expect(decoded == entry.doc.document)
        // String equality is canonical (NFC "é" == NFD "é"); the bytes tell them apart.
        #expect(hexString(decoded.encoded()) == entry.bson)
    }
}

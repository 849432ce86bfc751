// Codec benchmarks: SDLJSON against Foundation's JSONDecoder/JSONEncoder (over Codable mirrors of
// the same types) and JSONSerialization, and the BSON codec, on the corpus in Benchmarks/Payloads.
// Prints Markdown tables; with --bson-out DIR also writes the BSON documents and this side's BSON
// timings there for Benchmarks/bson_pymongo.py. Run through Benchmarks/codecs.sh.
import CodableMirrors
import Foundation
import SDLRPC
import SDLRuntime

// MARK: - Options

var options = HarnessOptions()
var payloadDirectory = "Benchmarks/Payloads"
var bsonOutput: String?
var only: String?
do {
    var arguments = CommandLine.arguments.dropFirst()
    func value(_ flag: String) -> String {
        guard let next = arguments.popFirst() else { fatalError("\(flag) needs a value") }
        return next
    }
    while let argument = arguments.popFirst() {
        switch argument {
        case "--payloads": payloadDirectory = value(argument)
        case "--bson-out": bsonOutput = value(argument)
        case "--samples": options.samples = Int(value(argument)) ?? options.samples
        case "--sample-ms": options.sampleMilliseconds = Int(value(argument)) ?? options.sampleMilliseconds
        case "--only": only = value(argument)
        case "--candidate": options.candidate = value(argument)
        case "--iterations": options.fixedIterations = Int(value(argument))
        default: fatalError("unknown argument \(argument); use --payloads DIR --bson-out DIR --samples N --sample-ms N --only PAYLOAD --candidate NAME")
        }
    }
}

// MARK: - Cases

struct Row {
    var payload: String
    var bytes: Int
    var measurements: [Measurement]
}

struct Results {
    var decode: [Row] = []
    var encode: [Row] = []
    var bson: [Row] = []
}

protocol BenchCase {
    var name: String { get }
    func run(bytes: [UInt8], options: HarnessOptions, into results: inout Results, bsonOutput: String?) throws
}

struct Case<Message: SDLCodable, Mirror: Codable>: BenchCase {
    let name: String

    init(_ message: Message.Type, _ mirror: Mirror.Type) {
        name = Message.structInfo.name + (Message.self is any SDLResponse.Type ? "Response" : "")
    }

    func run(bytes: [UInt8], options: HarnessOptions, into results: inout Results, bsonOutput: String?) throws {
        let data = Data(bytes)
        let jsonDecoder = JSONDecoder()
        let jsonEncoder = JSONEncoder()

        // Every decoder must accept the payload, and agree on it.
        let decoded = try SDLJSON.decode(Message.self, from: bytes)
        precondition(decoded.warnings.isEmpty && decoded.unknownKeys.isEmpty, "\(name): issues decoding the payload")
        let value = decoded.value
        let mirror = try jsonDecoder.decode(Mirror.self, from: data)
        let tree = try JSONSerialization.jsonObject(with: data)
        let reencoded = try SDLJSON.encode(value)
        precondition(reencoded == bytes, "\(name): SDLJSON does not re-encode the payload byte for byte")
        let viaFoundation = try SDLJSON.decode(Message.self, from: Array(try jsonEncoder.encode(mirror)))
        precondition(viaFoundation.value == value, "\(name): the Codable mirror loses information")
        let viaSerialization = try SDLJSON.decode(Message.self, from: Array(try JSONSerialization.data(withJSONObject: tree)))
        precondition(viaSerialization.value == value, "\(name): JSONSerialization loses information")

        let noValidation = SDLEncodingOptions(validate: false)
        results.decode.append(
            Row(
                payload: name, bytes: bytes.count,
                measurements: try measure(
                    "decode",
                    [
                        Candidate(name: "SDLJSON") { try SDLJSON.decode(Message.self, from: bytes).warnings.count },
                        Candidate(name: "JSONDecoder") {
                            _ = try jsonDecoder.decode(Mirror.self, from: data)
                            return 1
                        },
                        Candidate(name: "JSONSerialization") { (try JSONSerialization.jsonObject(with: data) as? NSDictionary)?.count ?? 0 },
                    ], options: options)))
        results.encode.append(
            Row(
                payload: name, bytes: bytes.count,
                measurements: try measure(
                    "encode",
                    [
                        Candidate(name: "SDLJSON") { try SDLJSON.encode(value).count },
                        Candidate(name: "SDLJSON validate: false") { try SDLJSON.encode(value, options: noValidation).count },
                        Candidate(name: "JSONEncoder") { try jsonEncoder.encode(mirror).count },
                        Candidate(name: "JSONSerialization") { try JSONSerialization.data(withJSONObject: tree).count },
                    ], options: options)))

        // BSON: the same message as a document.
        let bson = try SDLBSON.encode(value)
        let document = try BSONDocument(decoding: bson)
        precondition(document.encoded() == bson, "\(name): BSONDocument does not re-encode byte for byte")
        let fromBSON = try SDLBSON.decode(Message.self, from: bson)
        precondition(fromBSON.value == value, "\(name): BSON round trip differs")
        results.bson.append(
            Row(
                payload: name, bytes: bson.count,
                measurements: try measure(
                    "bson",
                    [
                        Candidate(name: "decode BSONDocument") { try BSONDocument(decoding: bson).elements.count },
                        Candidate(name: "encode BSONDocument") { document.encoded().count },
                        Candidate(name: "decode typed") { try SDLBSON.decode(Message.self, from: bson).warnings.count },
                        Candidate(name: "encode typed") { try SDLBSON.encode(value).count },
                    ], options: options)))
        if let bsonOutput {
            try Data(bson).write(to: URL(fileURLWithPath: bsonOutput).appendingPathComponent("\(name).bson"))
        }
    }
}

let cases: [any BenchCase] = [
    Case(SDLRPC.RegisterAppInterfaceResponse.self, CodableMirrors.RegisterAppInterfaceResponse.self),
    Case(SDLRPC.GetVehicleDataResponse.self, CodableMirrors.GetVehicleDataResponse.self),
    Case(SDLRPC.Show.self, CodableMirrors.Show.self),
    Case(SDLRPC.OnHMIStatus.self, CodableMirrors.OnHMIStatus.self),
    Case(SDLRPC.CreateInteractionChoiceSet.self, CodableMirrors.CreateInteractionChoiceSet.self),
]

// MARK: - Run

var results = Results()
for benchCase in cases where only.map({ benchCase.name.contains($0) }) ?? true {
    let path = URL(fileURLWithPath: payloadDirectory).appendingPathComponent("\(benchCase.name).json")
    var bytes = Array(try Data(contentsOf: path))
    while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: " ") { bytes.removeLast() }
    FileHandle.standardError.write(Data("benchmarking \(benchCase.name) (\(bytes.count) bytes)\n".utf8))
    try benchCase.run(bytes: bytes, options: options, into: &results, bsonOutput: bsonOutput)
}

// MARK: - Tables

func grouped(_ value: Double, decimals: Int = 0) -> String {
    let text = String(format: "%.\(decimals)f", value)
    let parts = text.split(separator: ".", maxSplits: 1)
    var integer = String(parts[0])
    let negative = integer.hasPrefix("-")
    if negative { integer.removeFirst() }
    var groups: [Substring] = []
    while integer.count > 3 {
        groups.insert(Substring(integer.suffix(3)), at: 0)
        integer.removeLast(3)
    }
    groups.insert(Substring(integer), at: 0)
    return (negative ? "-" : "") + groups.joined(separator: ",") + (parts.count > 1 ? "." + parts[1] : "")
}

/// MB/s (10^6 bytes per second) for `bytes` in `nanoseconds`.
func throughput(_ bytes: Int, _ nanoseconds: Double) -> String {
    grouped(Double(bytes) / nanoseconds * 1000, decimals: 1)
}

func ratio(_ slower: Double, _ faster: Double) -> String {
    String(format: "%.2f×", slower / faster)
}

/// One table: per payload and for the whole corpus, ns/message and MB/s of every candidate, and
/// how many times faster the first is than each of `against`.
func table(_ rows: [Row], against: [String]) -> String {
    guard let first = rows.first else { return "" }
    let names = first.measurements.map(\.name)
    let against = against.filter(names.contains)
    var header = "| Payload | Bytes |"
    var rule = "| :--- | ---: |"
    for name in names {
        header += " \(name) ns/msg | \(name) MB/s |"
        rule += " ---: | ---: |"
    }
    for name in against {
        header += " \(names[0]) vs \(name) |"
        rule += " ---: |"
    }
    var lines = [header, rule]
    func line(_ label: String, _ bytes: Int, _ nanoseconds: [Double]) -> String {
        var text = "| \(label) | \(grouped(Double(bytes))) |"
        for value in nanoseconds { text += " \(grouped(value)) | \(throughput(bytes, value)) |" }
        for name in against {
            let index = names.firstIndex(of: name)!
            text += " \(ratio(nanoseconds[index], nanoseconds[0])) |"
        }
        return text
    }
    for row in rows { lines.append(line(row.payload, row.bytes, row.measurements.map(\.nanoseconds))) }
    if rows.count > 1 {
        let totals = names.indices.map { index in rows.reduce(0) { $0 + $1.measurements[index].nanoseconds } }
        lines.append(line("**Corpus (one of each)**", rows.reduce(0) { $0 + $1.bytes }, totals))
    }
    return lines.joined(separator: "\n")
}

func allocationTable(_ decode: [Row], _ encode: [Row]) -> String {
    guard let firstDecode = decode.first, let firstEncode = encode.first else { return "" }
    var header = "| Payload |"
    var rule = "| :--- |"
    for measurement in firstDecode.measurements {
        header += " decode \(measurement.name) |"
        rule += " ---: |"
    }
    for measurement in firstEncode.measurements {
        header += " encode \(measurement.name) |"
        rule += " ---: |"
    }
    var lines = [header, rule]
    for (decodeRow, encodeRow) in zip(decode, encode) {
        let counts = (decodeRow.measurements + encodeRow.measurements).map { grouped($0.allocations, decimals: 0) }
        lines.append("| \(decodeRow.payload) | " + counts.joined(separator: " | ") + " |")
    }
    return lines.joined(separator: "\n")
}

print("### Decode (bytes → value)\n")
print(table(results.decode, against: ["JSONDecoder", "JSONSerialization"]))
print("\n### Encode (value → bytes)\n")
print(table(results.encode, against: ["JSONEncoder", "JSONSerialization"]))
print("\n### Allocations per message (malloc calls)\n")
print(allocationTable(results.decode, results.encode))
print(
    """

    Median of \(options.samples) samples of about \(options.sampleMilliseconds) ms each, candidates interleaved. MB/s is the \
    payload's size (compact JSON, as SDLJSON writes it) over the time, for every candidate. "SDLJSON vs X" is X's \
    time over ours: how many times faster ours is. SDLJSON encodes with the default options, which validate the \
    value against the spec first; "validate: false" skips that.
    """)

if let bsonOutput {
    // This side's BSON timings, for the pymongo script to print beside its own.
    var rows: [[String: Any]] = []
    for row in results.bson {
        var entry: [String: Any] = ["payload": row.payload, "bytes": row.bytes]
        for measurement in row.measurements {
            let key =
                measurement.name.hasPrefix("decode B")
                ? "decodeDocument"
                : measurement.name.hasPrefix("encode B")
                    ? "encodeDocument"
                    : measurement.name.hasPrefix("decode") ? "decodeTyped" : "encodeTyped"
            entry[key] = measurement.nanoseconds
            entry[key + "Allocations"] = measurement.allocations
        }
        rows.append(entry)
    }
    let json = try JSONSerialization.data(
        withJSONObject: ["samples": options.samples, "sampleMilliseconds": options.sampleMilliseconds, "rows": rows],
        options: [.prettyPrinted, .sortedKeys])
    try json.write(to: URL(fileURLWithPath: bsonOutput).appendingPathComponent("swift.json"))
} else {
    print("\n### BSON (Swift only; run codecs.sh for pymongo beside it)\n")
    print(table(results.bson, against: []))
}

// HMI API codec benchmark (issue 45): SDLJSONRPC (typed JSON-RPC decode and validating encode of
// the generated SDLHMIRPC types) beside Foundation's JSONDecoder/JSONEncoder over plain Codable
// mirrors of the same types in the same envelope, on the corpus in Benchmarks/HMIPayloads. Also
// times the params object alone (SDLJSON.decode/encode of the body, and JSONDecoder/JSONEncoder
// of the mirror body), to show what the envelope costs. Prints Markdown tables. Run through
// Benchmarks/hmi-codecs.sh.
import Foundation
import HMICodableMirrors
import SDLHMIRPC
import SDLRuntime

// MARK: - Options

var options = HarnessOptions()
var payloadDirectory = "Benchmarks/HMIPayloads"
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
        case "--samples": options.samples = Int(value(argument)) ?? options.samples
        case "--sample-ms": options.sampleMilliseconds = Int(value(argument)) ?? options.sampleMilliseconds
        case "--only": only = value(argument)
        case "--candidate": options.candidate = value(argument)
        case "--iterations": options.fixedIterations = Int(value(argument))
        default: fatalError("unknown argument \(argument); use --payloads DIR --samples N --sample-ms N --only PAYLOAD --candidate NAME --iterations N")
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
}

/// The candidates' names; the tables' ratio columns refer to them.
enum Name {
    static let ours = "SDLJSONRPC"
    static let oursReadDecode = "SDLJSONRPC read + decode"
    static let oursRead = "SDLJSONRPC read only"
    static let oursNoValidation = "SDLJSONRPC validate: false"
    static let foundationDecoder = "JSONDecoder"
    static let foundationEncoder = "JSONEncoder"
    static let oursParams = "SDLJSON params only"
    static let foundationDecoderParams = "JSONDecoder params only"
    static let foundationEncoderParams = "JSONEncoder params only"
}

/// One payload: how to decode and encode it with each candidate. The three kinds of message
/// (request, response, notification) differ only in the calls, so each builds one of these.
struct Case {
    let name: String
    let run: (_ bytes: [UInt8], _ options: HarnessOptions, _ results: inout Results) throws -> Void
}

/// The payload's params object alone: for a request or notification the `params` member, for a
/// response the `result` member less `code` and `method` (both as SDLJSON writes the type).
/// Checked to be that part of the payload byte for byte.
func paramsBytes<T: SDLCodable>(_ value: T, in payload: [UInt8], isResponse: Bool, name: String) throws -> [UInt8] {
    let params = try SDLJSON.encode(value)
    let text = String(decoding: payload, as: UTF8.self)
    let part = String(decoding: isResponse ? Array(params.dropFirst()) : params, as: UTF8.self)
    precondition(text.hasSuffix(part + "}"), "\(name): the params object is not the payload's")
    return params
}

func timings(
    _ name: String, bytes: [UInt8], options: HarnessOptions, into results: inout Results,
    decode: (
        ours: () throws -> Int, readDecode: () throws -> Int, read: () throws -> Int, foundation: () throws -> Int, oursParams: () throws -> Int,
        foundationParams: () throws -> Int
    ),
    encode: (
        ours: () throws -> Int, noValidation: () throws -> Int, foundation: () throws -> Int, oursParams: () throws -> Int, foundationParams: () throws -> Int
    )
) throws {
    // Local copies of the closures, so that the candidates' bodies are plain escaping closures.
    let d = decode
    let e = encode
    results.decode.append(
        Row(
            payload: name, bytes: bytes.count,
            measurements: try measure(
                "decode",
                [
                    Candidate(name: Name.ours, body: d.ours),
                    Candidate(name: Name.foundationDecoder, body: d.foundation),
                    Candidate(name: Name.oursReadDecode, body: d.readDecode),
                    Candidate(name: Name.oursRead, body: d.read),
                    Candidate(name: Name.oursParams, body: d.oursParams),
                    Candidate(name: Name.foundationDecoderParams, body: d.foundationParams),
                ], options: options)))
    results.encode.append(
        Row(
            payload: name, bytes: bytes.count,
            measurements: try measure(
                "encode",
                [
                    Candidate(name: Name.ours, body: e.ours),
                    Candidate(name: Name.foundationEncoder, body: e.foundation),
                    Candidate(name: Name.oursNoValidation, body: e.noValidation),
                    Candidate(name: Name.oursParams, body: e.oursParams),
                    Candidate(name: Name.foundationEncoderParams, body: e.foundationParams),
                ], options: options)))
}

func requestCase<P: SDLHMIRequest, Mirror: Codable & Hashable>(_ type: P.Type, _ mirror: Mirror.Type) -> Case {
    Case(name: P.method) { bytes, options, results in
        let data = Data(bytes)
        let jsonDecoder = JSONDecoder()
        let jsonEncoder = JSONEncoder()
        let noValidation = SDLEncodingOptions(validate: false)

        // Both decoders accept the payload, and agree on it.
        let decoded = try SDLJSONRPC.decodeRequest(P.self, from: bytes)
        precondition(decoded.warnings.isEmpty && decoded.unknownKeys.isEmpty, "\(P.method): issues decoding the payload")
        let value = decoded.value
        let reencodes = try SDLJSONRPC.encode(value) == bytes
        precondition(reencodes, "\(P.method): SDLJSONRPC does not re-encode the payload byte for byte")
        let envelope = try jsonDecoder.decode(RequestMirror<Mirror>.self, from: data)
        precondition(
            envelope.jsonrpc == "2.0" && envelope.method == P.method && SDLJSONRPCID.number(envelope.id) == value.id,
            "\(P.method): the mirror's envelope differs")
        let viaFoundation = try SDLJSONRPC.decodeRequest(P.self, from: Array(try jsonEncoder.encode(envelope)))
        precondition(viaFoundation.value == value && viaFoundation.warnings.isEmpty, "\(P.method): the Codable mirror loses information")
        let params = try paramsBytes(value.params, in: bytes, isResponse: false, name: P.method)
        let paramsData = Data(params)
        let paramsAgree = try SDLJSON.decode(P.self, from: params).value == value.params
        precondition(paramsAgree, "\(P.method): params alone differ")
        let mirrorParamsAgree = try jsonDecoder.decode(Mirror.self, from: paramsData) == envelope.params
        precondition(mirrorParamsAgree, "\(P.method): mirror params alone differ")
        let mirrorParams = envelope.params

        try timings(
            P.method, bytes: bytes, options: options, into: &results,
            decode: (
                ours: { try SDLJSONRPC.decodeRequest(P.self, from: bytes).warnings.count },
                readDecode: { try SDLJSONRPC.read(bytes).decode(P.self).warnings.count },
                read: { try SDLJSONRPC.read(bytes).warnings.count },
                foundation: { try jsonDecoder.decode(RequestMirror<Mirror>.self, from: data).id },
                oursParams: { try SDLJSON.decode(P.self, from: params).warnings.count },
                foundationParams: {
                    _ = try jsonDecoder.decode(Mirror.self, from: paramsData)
                    return 1
                }
            ),
            encode: (
                ours: { try SDLJSONRPC.encode(value).count },
                noValidation: { try SDLJSONRPC.encode(value, options: noValidation).count },
                foundation: { try jsonEncoder.encode(envelope).count },
                oursParams: { try SDLJSON.encode(value.params).count },
                foundationParams: { try jsonEncoder.encode(mirrorParams).count }
            ))
    }
}

func notificationCase<P: SDLHMINotification, Mirror: Codable & Hashable>(_ type: P.Type, _ mirror: Mirror.Type) -> Case {
    Case(name: P.method) { bytes, options, results in
        let data = Data(bytes)
        let jsonDecoder = JSONDecoder()
        let jsonEncoder = JSONEncoder()
        let noValidation = SDLEncodingOptions(validate: false)

        let decoded = try SDLJSONRPC.decodeNotification(P.self, from: bytes)
        precondition(decoded.warnings.isEmpty && decoded.unknownKeys.isEmpty, "\(P.method): issues decoding the payload")
        let value = decoded.value
        let reencodes = try SDLJSONRPC.encode(value) == bytes
        precondition(reencodes, "\(P.method): SDLJSONRPC does not re-encode the payload byte for byte")
        let envelope = try jsonDecoder.decode(NotificationMirror<Mirror>.self, from: data)
        precondition(envelope.jsonrpc == "2.0" && envelope.method == P.method, "\(P.method): the mirror's envelope differs")
        let viaFoundation = try SDLJSONRPC.decodeNotification(P.self, from: Array(try jsonEncoder.encode(envelope)))
        precondition(viaFoundation.value == value && viaFoundation.warnings.isEmpty, "\(P.method): the Codable mirror loses information")
        let params = try paramsBytes(value.params, in: bytes, isResponse: false, name: P.method)
        let paramsData = Data(params)
        let paramsAgree = try SDLJSON.decode(P.self, from: params).value == value.params
        precondition(paramsAgree, "\(P.method): params alone differ")
        let mirrorParamsAgree = try jsonDecoder.decode(Mirror.self, from: paramsData) == envelope.params
        precondition(mirrorParamsAgree, "\(P.method): mirror params alone differ")
        let mirrorParams = envelope.params

        try timings(
            P.method, bytes: bytes, options: options, into: &results,
            decode: (
                ours: { try SDLJSONRPC.decodeNotification(P.self, from: bytes).warnings.count },
                readDecode: { try SDLJSONRPC.read(bytes).decode(P.self).warnings.count },
                read: { try SDLJSONRPC.read(bytes).warnings.count },
                foundation: { try jsonDecoder.decode(NotificationMirror<Mirror>.self, from: data).method.utf8.count },
                oursParams: { try SDLJSON.decode(P.self, from: params).warnings.count },
                foundationParams: {
                    _ = try jsonDecoder.decode(Mirror.self, from: paramsData)
                    return 1
                }
            ),
            encode: (
                ours: { try SDLJSONRPC.encode(value).count },
                noValidation: { try SDLJSONRPC.encode(value, options: noValidation).count },
                foundation: { try jsonEncoder.encode(envelope).count },
                oursParams: { try SDLJSON.encode(value.params).count },
                foundationParams: { try jsonEncoder.encode(mirrorParams).count }
            ))
    }
}

func responseCase<R: SDLHMIResponse, Mirror: Codable & Hashable>(_ type: R.Type, _ mirror: Mirror.Type) -> Case {
    let name = R.method + "Response"
    return Case(name: name) { bytes, options, results in
        let data = Data(bytes)
        let jsonDecoder = JSONDecoder()
        let jsonEncoder = JSONEncoder()
        let noValidation = SDLEncodingOptions(validate: false)

        let decoded = try SDLJSONRPC.decodeReply(R.self, code: SDLHMIRPC.Common.Result.self, from: bytes)
        precondition(decoded.warnings.isEmpty && decoded.unknownKeys.isEmpty, "\(name): issues decoding the payload")
        guard case .result(let value) = decoded.value else { fatalError("\(name): not a response") }
        let reencodes = try SDLJSONRPC.encode(value) == bytes
        precondition(reencodes, "\(name): SDLJSONRPC does not re-encode the payload byte for byte")
        let envelope = try jsonDecoder.decode(ResponseMirror<Mirror>.self, from: data)
        precondition(
            envelope.jsonrpc == "2.0" && envelope.method == R.method && SDLJSONRPCID.number(envelope.id) == value.id
                && envelope.code == value.code.code, "\(name): the mirror's envelope differs")
        let viaFoundation = try SDLJSONRPC.decodeReply(R.self, code: SDLHMIRPC.Common.Result.self, from: Array(try jsonEncoder.encode(envelope)))
        precondition(viaFoundation.value == .result(value) && viaFoundation.warnings.isEmpty, "\(name): the Codable mirror loses information")
        let params = try paramsBytes(value.result, in: bytes, isResponse: true, name: name)
        let paramsData = Data(params)
        let paramsAgree = try SDLJSON.decode(R.self, from: params).value == value.result
        precondition(paramsAgree, "\(name): params alone differ")
        let mirrorParamsAgree = try jsonDecoder.decode(Mirror.self, from: paramsData) == envelope.result
        precondition(mirrorParamsAgree, "\(name): mirror params alone differ")
        let mirrorParams = envelope.result

        try timings(
            name, bytes: bytes, options: options, into: &results,
            decode: (
                ours: { try SDLJSONRPC.decodeReply(R.self, code: SDLHMIRPC.Common.Result.self, from: bytes).warnings.count },
                readDecode: { try SDLJSONRPC.read(bytes).decode(R.self).warnings.count },
                read: { try SDLJSONRPC.read(bytes).warnings.count },
                foundation: { try jsonDecoder.decode(ResponseMirror<Mirror>.self, from: data).code },
                oursParams: { try SDLJSON.decode(R.self, from: params).warnings.count },
                foundationParams: {
                    _ = try jsonDecoder.decode(Mirror.self, from: paramsData)
                    return 1
                }
            ),
            encode: (
                ours: { try SDLJSONRPC.encode(value).count },
                noValidation: { try SDLJSONRPC.encode(value, options: noValidation).count },
                foundation: { try jsonEncoder.encode(envelope).count },
                oursParams: { try SDLJSON.encode(value.result).count },
                foundationParams: { try jsonEncoder.encode(mirrorParams).count }
            ))
    }
}

let cases: [Case] = [
    responseCase(SDLHMIRPC.UI.GetCapabilitiesResponse.self, HMICodableMirrors.UI.GetCapabilitiesResponse.self),
    responseCase(SDLHMIRPC.VehicleInfo.GetVehicleDataResponse.self, HMICodableMirrors.VehicleInfo.GetVehicleDataResponse.self),
    requestCase(SDLHMIRPC.UI.Show.self, HMICodableMirrors.UI.Show.self),
    requestCase(SDLHMIRPC.UI.Alert.self, HMICodableMirrors.UI.Alert.self),
    notificationCase(SDLHMIRPC.BasicCommunication.OnAppRegistered.self, HMICodableMirrors.BasicCommunication.OnAppRegistered.self),
    notificationCase(SDLHMIRPC.Buttons.OnButtonPress.self, HMICodableMirrors.Buttons.OnButtonPress.self),
]

// MARK: - Run

var results = Results()
for benchCase in cases where only.map({ benchCase.name.contains($0) }) ?? true {
    let path = URL(fileURLWithPath: payloadDirectory).appendingPathComponent("\(benchCase.name).json")
    var bytes = Array(try Data(contentsOf: path))
    while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: " ") { bytes.removeLast() }
    FileHandle.standardError.write(Data("benchmarking \(benchCase.name) (\(bytes.count) bytes)\n".utf8))
    try benchCase.run(bytes, options, &results)
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

/// One table: per payload and for the whole corpus, ns/message and MB/s of every candidate (MB/s
/// always of the whole message's size), then for each (ours, theirs) pair how many times faster
/// ours is (theirs' time over ours).
func table(_ rows: [Row], ratios: [(ours: String, theirs: String)]) -> String {
    guard let first = rows.first else { return "" }
    let names = first.measurements.map(\.name)
    let ratios = ratios.filter { names.contains($0.ours) && names.contains($0.theirs) }
    var header = "| Payload | Bytes |"
    var rule = "| :--- | ---: |"
    for name in names {
        header += " \(name) ns/msg | \(name) MB/s |"
        rule += " ---: | ---: |"
    }
    for pair in ratios {
        header += " \(pair.ours) vs \(pair.theirs) |"
        rule += " ---: |"
    }
    var lines = [header, rule]
    func line(_ label: String, _ bytes: Int, _ nanoseconds: [Double]) -> String {
        var text = "| \(label) | \(grouped(Double(bytes))) |"
        for value in nanoseconds { text += " \(grouped(value)) | \(throughput(bytes, value)) |" }
        for pair in ratios {
            let ours = nanoseconds[names.firstIndex(of: pair.ours)!]
            let theirs = nanoseconds[names.firstIndex(of: pair.theirs)!]
            text += String(format: " %.2f× |", theirs / ours)
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

/// What the envelope costs each side: the whole message's time less the params object's alone,
/// and that as a share of the whole message's time.
func envelopeTable(_ rows: [Row], ours: String, oursParams: String, theirs: String, theirsParams: String) -> String {
    guard let first = rows.first, [ours, oursParams, theirs, theirsParams].allSatisfy({ name in first.measurements.contains { $0.name == name } })
    else { return "(not all candidates ran)" }
    var lines = [
        "| Payload | \(ours) envelope ns | share of \(ours) | \(theirs) envelope ns | share of \(theirs) |",
        "| :--- | ---: | ---: | ---: | ---: |",
    ]
    func time(_ row: Row, _ name: String) -> Double { row.measurements.first { $0.name == name }!.nanoseconds }
    func line(_ label: String, _ a: Double, _ aParams: Double, _ b: Double, _ bParams: Double) -> String {
        "| \(label) | \(grouped(a - aParams)) | \(String(format: "%.0f %%", (a - aParams) / a * 100)) | \(grouped(b - bParams)) | \(String(format: "%.0f %%", (b - bParams) / b * 100)) |"
    }
    for row in rows {
        lines.append(line(row.payload, time(row, ours), time(row, oursParams), time(row, theirs), time(row, theirsParams)))
    }
    if rows.count > 1 {
        func total(_ name: String) -> Double { rows.reduce(0) { $0 + time($1, name) } }
        lines.append(line("**Corpus (one of each)**", total(ours), total(oursParams), total(theirs), total(theirsParams)))
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
print(
    table(
        results.decode,
        ratios: [
            (Name.ours, Name.foundationDecoder), (Name.oursParams, Name.foundationDecoderParams), (Name.ours, Name.oursParams),
        ]))
print("\n### Encode (value → bytes)\n")
print(
    table(
        results.encode,
        ratios: [
            (Name.ours, Name.foundationEncoder), (Name.oursParams, Name.foundationEncoderParams),
        ]))
print("\n### What the envelope costs (whole message less params alone, median times)\n")
print("Decode:\n")
print(envelopeTable(results.decode, ours: Name.ours, oursParams: Name.oursParams, theirs: Name.foundationDecoder, theirsParams: Name.foundationDecoderParams))
print("\nEncode:\n")
print(envelopeTable(results.encode, ours: Name.ours, oursParams: Name.oursParams, theirs: Name.foundationEncoder, theirsParams: Name.foundationEncoderParams))
print("\n### Allocations per message (malloc calls)\n")
print(allocationTable(results.decode, results.encode))
print(
    """

    Median of \(options.samples) samples of about \(options.sampleMilliseconds) ms each, the candidates of a payload \
    interleaved. MB/s is the whole message's size (compact JSON, as SDLJSONRPC writes it) over the time, for every \
    candidate, also the params-only ones. "X vs Y" is Y's time over X's: how many times faster X is ("SDLJSONRPC vs \
    SDLJSON params only" is below 1: the share of the params-only speed the whole message keeps). SDLJSONRPC decodes \
    typed (decodeRequest, decodeNotification and decodeReply, each in one pass: the params or result decoded where the \
    envelope meets them) \
    and encodes with the default options, which validate the params against the spec first; "validate: false" skips \
    that. "read + decode" is SDLJSONRPC.read then message.decode; "read only" is SDLJSONRPC.read alone (the envelope, \
    the body checked and skipped). "params only" decodes and encodes the params object alone (for a response, the \
    result's members other than code and method) as SDLJSON / the mirror struct, without an envelope.
    """)

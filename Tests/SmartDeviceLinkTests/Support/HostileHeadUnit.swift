import SDLHeadUnit
import SDLProtocol
import SDLRPC
import SDLRuntime
import SDLTestSupport
import SDLTransport

/// A head unit that misbehaves: the stateful emulator behind a relay that, by a seeded plan,
/// answers the app's requests with other result codes, malformed or missing responses,
/// duplicated and out-of-order ones, slips in notifications (HMI level flips, every permission
/// revoked, a language change, driver distraction, the display's or the video's capabilities
/// changed) and drops the connection after some message from either side (the app's count
/// includes its video frames, so drops land in the middle of a stream too).
/// The app's bytes reach the emulator untouched, so the emulator's state is what the head unit
/// did; what the relay delivered is what it confirmed.
final class HostileHeadUnit: Sendable {
    /// What the relay did, for the properties a test checks.
    struct Record: Sendable {
        /// Show's `mainField1` by correlation ID, as the app sent them.
        var showTexts: [UInt32: String] = [:]
        /// Texts of Shows the app was told succeeded (a success response delivered).
        var confirmedTexts: Set<String> = []
        /// Mischief done, by kind.
        var mischief: [String: Int] = [:]
        var dropped = false
        /// Video messages the app sent that reached the head unit.
        var videoMessages = 0
    }

    let emulator: SDLHeadUnitEmulator
    let record = Locked(Record())
    private let seed: UInt64
    private let losesResponses: Bool

    /// - Parameter losesResponses: whether responses go missing or are held back (out of order,
    ///   possibly for good). Without it no call waits for its timeout, so how far a seed gets
    ///   does not depend on how loaded the machine is.
    init(seed: UInt64, losesResponses: Bool = true) {
        self.seed = seed
        self.losesResponses = losesResponses
        emulator = SDLHeadUnitEmulator()
    }

    /// A transport to the hostile head unit; each call is a new connection with its own relay.
    func connect() -> any SDLTransport {
        let (app, relayApp) = SDLMemoryTransport.pair()
        let (relayCar, car) = SDLMemoryTransport.pair()
        let emulator = self.emulator
        Task { await emulator.serve(car) }
        let record = self.record
        var random = SplitMix64(seed: seed)
        // A third of the runs lose the connection after one of the head unit's first 60 messages.
        let dropAfter: Int? = random.next() % 3 == 0 ? Int(random.next() % 60) + 1 : nil
        // A quarter lose it after one of the app's first 150 messages (registration, uploads,
        // menus, video frames), from a generator of its own so that the plans above stay as they were.
        var appSide = SplitMix64(seed: seed ^ 0x5EED_A99)
        let dropAfterApp: Int? = appSide.next() % 4 == 0 ? Int(appSide.next() % 150) + 1 : nil
        let plan = random
        let losesResponses = self.losesResponses
        Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await Self.forwardAppToCar(relayApp, relayCar, dropAfter: dropAfterApp, record: record) }
                group.addTask {
                    await Self.forwardCarToApp(relayCar, relayApp, plan: plan, dropAfter: dropAfter, losesResponses: losesResponses, record: record)
                }
            }
        }
        return app
    }

    /// The app's bytes, untouched, until the connection drops after the app's `dropAfter`th
    /// message; Show texts noted by correlation ID.
    private static func forwardAppToCar(_ from: SDLMemoryTransport, _ to: SDLMemoryTransport, dropAfter: Int?, record: Locked<Record>) async {
        var decoder = SDLFrameDecoder(maxDataSize: 1 << 20)
        var reassembler = SDLReassembler()
        var count = 0
        do {
            for try await bytes in from.inbound {
                decoder.append(bytes)
                while let frame = try decoder.nextFrame() {
                    guard let message = try reassembler.receive(frame) else { continue }
                    count += 1
                    if let dropAfter, count > dropAfter {
                        record.withLock {
                            $0.dropped = true
                            $0.mischief["appSideDrop", default: 0] += 1
                        }
                        from.fail(SDLTransportError.closed)
                        to.fail(SDLTransportError.closed)
                        return
                    }
                    if message.serviceType == .video, message.controlFrameType == nil { record.withLock { $0.videoMessages += 1 } }
                    guard message.serviceType == .rpc, message.controlFrameType == nil,
                        let rpc = try? SDLRPCPayload(decoding: message.payload), rpc.functionID == Show.wireFunctionID,
                        case .string(let text)? = (try? SDLJSONValue(parsing: rpc.json))?["mainField1"]
                    else { continue }
                    record.withLock { $0.showTexts[rpc.correlationID] = text }
                }
                try await to.send(bytes)
            }
        } catch {}
        await to.close()
    }

    /// The head unit's messages through the plan.
    private static func forwardCarToApp(
        _ from: SDLMemoryTransport, _ to: SDLMemoryTransport, plan: SplitMix64, dropAfter: Int?, losesResponses: Bool, record: Locked<Record>
    ) async {
        var random = plan
        var decoder = SDLFrameDecoder(maxDataSize: 1 << 20)
        var reassembler = SDLReassembler()
        var held: SDLProtocolMessage?
        var count = 0
        func note(_ kind: String) { record.withLock { $0.mischief[kind, default: 0] += 1 } }
        func send(_ message: SDLProtocolMessage) async throws {
            var out: [UInt8] = []
            SDLFramer.encode(message, maxPayloadSize: SDLFramer.defaultMaxPayloadSize, into: &out)
            try await to.send(out)
            // Confirmed once it is on its way to the app.
            if message.serviceType == .rpc, message.controlFrameType == nil, let rpc = try? SDLRPCPayload(decoding: message.payload),
                rpc.rpcType == .response, rpc.functionID == Show.wireFunctionID,
                (try? SDLJSONValue(parsing: rpc.json))?["success"] == .bool(true)
            {
                record.withLock { if let text = $0.showTexts[rpc.correlationID] { $0.confirmedTexts.insert(text) } }
            }
        }
        do {
            for try await bytes in from.inbound {
                decoder.append(bytes)
                while let frame = try decoder.nextFrame() {
                    guard var message = try reassembler.receive(frame) else { continue }
                    count += 1
                    if let dropAfter, count > dropAfter {
                        record.withLock { $0.dropped = true }
                        to.fail(SDLTransportError.closed)
                        from.fail(SDLTransportError.closed)
                        return
                    }
                    guard message.serviceType == .rpc, message.controlFrameType == nil, var rpc = try? SDLRPCPayload(decoding: message.payload) else {
                        try await send(message)
                        continue
                    }
                    if random.next() % 20 == 0, let injected = Self.notification(like: message, random: &random) {
                        note("notification")
                        try await send(injected)
                    }
                    guard rpc.rpcType == .response else {
                        try await send(message)
                        continue
                    }
                    var roll = random.next() % 100
                    if !losesResponses, (74..<82).contains(roll) || roll >= 90 { roll = 0 }
                    switch roll {
                    case ..<55:
                        try await send(message)
                    case ..<66:
                        // Another result code for what the head unit did (WARNINGS keeps success); a
                        // failure is never turned into a success, which no app could tell from a real one.
                        guard case .object(var members)? = try? SDLJSONValue(parsing: rpc.json),
                            members.contains(where: { $0.key == "success" && $0.value == .bool(true) })
                        else {
                            try await send(message)
                            continue
                        }
                        let codes: [SDLResult] = [
                            .rejected, .disallowed, .genericError, .timedOut, .inUse, .aborted, .invalidData, .outOfMemory,
                            .tooManyPendingRequests, .applicationNotRegistered, .userDisallowed, .unsupportedRequest, .warnings,
                        ]
                        let code = codes[Int(random.next() % UInt64(codes.count))]
                        members.removeAll { $0.key == "resultCode" || $0.key == "success" }
                        members.append(.init(key: "resultCode", value: .string(code.rawValue)))
                        members.append(.init(key: "success", value: .bool(code == .warnings)))
                        rpc.json = SDLJSONValue.object(members).jsonBytes
                        message.payload = rpc.bytes
                        note("resultCode")
                        try await send(message)
                    case ..<74:
                        // Malformed: the JSON cut short.
                        rpc.json = Array(rpc.json.prefix(rpc.json.count / 2))
                        message.payload = rpc.bytes
                        note("malformed")
                        try await send(message)
                    case ..<82:
                        note("missing")
                    case ..<90:
                        note("duplicate")
                        try await send(message)
                        try await send(message)
                    default:
                        // Out of order: after the next message (or never, if none comes).
                        note("outOfOrder")
                        if let earlier = held { try await send(earlier) }
                        held = message
                        continue
                    }
                    if let earlier = held {
                        held = nil
                        try await send(earlier)
                    }
                }
            }
        } catch {}
        await to.close()
    }

    /// A notification at a random moment, in the head unit's session.
    private static func notification(like message: SDLProtocolMessage, random: inout SplitMix64) -> SDLProtocolMessage? {
        let levels = ["FULL", "LIMITED", "BACKGROUND", "NONE"]
        let choices: [(UInt32?, String)] = [
            (
                OnHMIStatus.wireFunctionID,
                #"{"hmiLevel":"\#(levels[Int(random.next() % 4)])","audioStreamingState":"NOT_AUDIBLE","systemContext":"MAIN","windowID":0}"#
            ),
            (OnPermissionsChange.wireFunctionID, #"{"permissionItem":[]}"#),
            (OnLanguageChange.wireFunctionID, #"{"language":"DE-DE","hmiDisplayLanguage":"DE-DE"}"#),
            (OnDriverDistraction.wireFunctionID, #"{"state":"DD_ON"}"#),
            // The main window loses every text field but mainField1, and its soft buttons.
            (
                OnSystemCapabilityUpdated.wireFunctionID,
                #"{"systemCapability":{"systemCapabilityType":"DISPLAYS","displayCapabilities":[{"displayName":"SHRUNK","windowCapabilities":[{"windowID":0,"textFields":[{"name":"mainField1","characterSet":"UTF_8","width":20,"rows":1}],"imageFields":[],"imageTypeSupported":[],"templatesAvailable":["DEFAULT"],"numCustomPresetsAvailable":0,"buttonCapabilities":[],"softButtonCapabilities":[]}]}]}}"#
            ),
            // The video stream's size and scale change under the app.
            (
                OnSystemCapabilityUpdated.wireFunctionID,
                #"{"systemCapability":{"systemCapabilityType":"VIDEO_STREAMING","videoStreamingCapability":{"preferredResolution":{"resolutionWidth":320,"resolutionHeight":240},"maxBitrate":100000,"supportedFormats":[{"protocol":"RAW","codec":"H264"}],"hapticSpatialDataSupported":true,"scale":2.0}}}"#
            ),
        ]
        let (id, json) = choices[Int(random.next() % UInt64(choices.count))]
        guard let id else { return nil }
        let rpc = SDLRPCPayload(rpcType: .notification, functionID: id, correlationID: 0xFFFF_FFFF, json: Array(json.utf8))
        return SDLProtocolMessage(version: message.version, serviceType: .rpc, sessionID: message.sessionID, messageID: message.messageID, payload: rpc.bytes)
    }
}

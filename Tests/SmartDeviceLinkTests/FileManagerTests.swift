import Foundation
import SDLConcurrency
import SDLHeadUnit
import SDLRPC
import SDLTestSupport
import Synchronization
import Testing

@testable import SmartDeviceLink

/// The file manager against the stateful emulator: what reaches the wire, what the head unit
/// holds, and what the app is told.
@Suite(.timeLimit(.minutes(3)), .runsManagers) struct FileManagerTests {
    static func bytes(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    static func headUnit(mtu: Int = 131_072, quota: Int = 100 * 1024 * 1024, frames: Locked<[SDLJSONValue]>? = nil) -> SDLHeadUnitEmulator {
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.mtu = mtu
        configuration.fileQuota = quota
        if let frames {
            configuration.log = { entry in
                if entry["frameType"] != nil { frames.withLock { $0.append(entry) } }
            }
        }
        return SDLHeadUnitEmulator(configuration: configuration)
    }

    static func configuration(_ headUnit: SDLHeadUnitEmulator, appID: String = "files", retries: Int = 1) -> SDLManager.Configuration {
        var configuration = ManagerLifecycleTests.configuration(headUnit, appID: appID)
        configuration.files.fileRetryCount = retries
        configuration.files.artworkRetryCount = retries
        return configuration
    }

    /// PutFile requests the app sent, as (offset, data size).
    static func putFiles(_ headUnit: SDLHeadUnitEmulator, appID: String) async -> [(offset: Int, size: Int)] {
        await headUnit.recordedRPCs(appID: appID).filter { $0.direction == "in" && $0.functionName == "PutFile" }.map { rpc in
            var offset = 0
            if case .integer(let value)? = rpc.parameters?["offset"] { offset = value }
            return (offset, rpc.bulkDataSize)
        }
    }

    @Test func chunksFitOneFrameOfTheMTUAtItsBoundaries() async throws {
        let frames = Locked<[SDLJSONValue]>([])
        let mtu = 1_500
        let headUnit = Self.headUnit(mtu: mtu, frames: frames)
        try await withSDLManager(Self.configuration(headUnit)) { manager in
            let files = manager.files
            let probe = SDLFile(name: "edge-a", bytes: [], type: .binary)
            let chunk = await files.chunkSize(for: probe, totalBytes: 5_000)
            #expect(chunk > 1_000 && chunk < mtu - 12)
            // Exactly one chunk, then one byte more: two chunks, the second of one byte.
            try await files.upload(SDLFile(name: "edge-a", bytes: Self.bytes(chunk), type: .binary))
            try await files.upload(SDLFile(name: "edge-b", bytes: Self.bytes(chunk + 1), type: .binary))
            let sent = await Self.putFiles(headUnit, appID: "files")
            #expect(sent.map(\.size) == [chunk, chunk, 1])
            #expect(await headUnit.file(appID: "files", name: "edge-a") == Self.bytes(chunk))
            #expect(await headUnit.file(appID: "files", name: "edge-b") == Self.bytes(chunk + 1))
        }
        // Every frame from the app was a single frame within the MTU: no PutFile was split.
        let fromApp = frames.current.filter { $0["direction"] == .string("in") }
        #expect(fromApp.allSatisfy { $0["frameType"] != .integer(2) && $0["frameType"] != .integer(3) })
        let largest = fromApp.compactMap { entry -> Int? in if case .integer(let size)? = entry["dataSize"] { size } else { nil } }.max() ?? 0
        #expect(largest <= mtu)
    }

    @Test func anEmptyFileAndOneOfMoreThan256ChunksArriveWhole() async throws {
        let headUnit = Self.headUnit(mtu: 1_024)
        try await withSDLManager(Self.configuration(headUnit)) { manager in
            let files = manager.files
            #expect(try await files.upload(SDLFile(name: "empty", bytes: [], type: .binary)) == .uploaded(bytes: 0))
            #expect(await headUnit.file(appID: "files", name: "empty") == [])
            let big = Self.bytes(300 * 900)
            let progress = Locked<[Int]>([])
            try await files.upload(SDLFile(name: "many", bytes: big, type: .binary)) { step in progress.withLock { $0.append(step.bytesConfirmed) } }
            #expect(await headUnit.file(appID: "files", name: "many") == big)
            #expect(await Self.putFiles(headUnit, appID: "files").count > 257)
            #expect(progress.current.first == 0)
            #expect(progress.current.last == big.count)
            #expect(progress.current == progress.current.sorted())
            #expect(await files.remoteFileNames == ["empty", "many"])
        }
    }

    @Test func aFileFromAPathAndAnUnreadablePath() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sdl-\(UInt32.random(in: 0...UInt32.max)).bin").path
        let data = Self.bytes(3_000)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(data)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let headUnit = Self.headUnit()
        try await withSDLManager(Self.configuration(headUnit)) { manager in
            let outcome = try await manager.files.upload(SDLFile(name: "from-disk.bin", path: path, type: .binary))
            #expect(outcome == .uploaded(bytes: 3_000))
            #expect(await headUnit.file(appID: "files", name: "from-disk.bin") == data)
            await expectSDLError(SDLFileError.unreadable(path: path + ".missing")) {
                try await manager.files.upload(SDLFile(name: "missing.bin", path: path + ".missing", type: .binary))
            }
            let artwork = try SDLArtwork(path: path, format: .png)
            #expect(artwork.name == SDLArtwork(bytes: data, format: .png).name)
        }
    }

    @Test func twoUploadsAtOnceBothArrive() async throws {
        let headUnit = Self.headUnit(mtu: 2_048)
        try await withSDLManager(Self.configuration(headUnit)) { manager in
            let first = Self.bytes(50_000, seed: 1)
            let second = Self.bytes(70_000, seed: 2)
            async let a = manager.files.upload(SDLFile(name: "one", bytes: first, type: .binary))
            async let b = manager.files.upload(SDLFile(name: "two", bytes: second, type: .binary))
            let outcomes = try await (a, b)
            #expect(outcomes.0 == .uploaded(bytes: 50_000))
            #expect(outcomes.1 == .uploaded(bytes: 70_000))
            #expect(await headUnit.file(appID: "files", name: "one") == first)
            #expect(await headUnit.file(appID: "files", name: "two") == second)
        }
    }

    @Test func aFullStorageIsAnErrorAndNothingIsClaimed() async throws {
        let headUnit = Self.headUnit(quota: 10_000)
        try await withSDLManager(Self.configuration(headUnit)) { manager in
            #expect(await manager.files.bytesAvailable == 10_000)
            let error = await expectSDLError(SDLFileError.self) {
                try await manager.files.upload(SDLFile(name: "huge", bytes: Self.bytes(20_000), type: .binary))
            }
            #expect(
                error == .failed(name: "huge", confirmedBytes: 0, totalBytes: 20_000, reason: .refused(.outOfMemory, info: "Not enough space on the head unit"))
            )
            #expect(await manager.files.hasFile(named: "huge") == false)
            // OUT_OF_MEMORY is not retried.
            #expect(await Self.putFiles(headUnit, appID: "files").count == 1)
        }
    }

    @Test func namesOnTheHeadUnitArentOverwrittenUnlessAskedAndArtworksGoOnce() async throws {
        let headUnit = Self.headUnit()
        try await withSDLManager(Self.configuration(headUnit)) { manager in
            let files = manager.files
            try await files.upload(SDLFile(name: "song.mp3", bytes: Self.bytes(100), type: .audioMp3))
            await expectSDLError(SDLFileError.cannotOverwrite(name: "song.mp3")) {
                try await files.upload(SDLFile(name: "song.mp3", bytes: Self.bytes(120), type: .audioMp3))
            }
            #expect(try await files.upload(SDLFile(name: "song.mp3", bytes: Self.bytes(120), type: .audioMp3, overwrite: true)) == .uploaded(bytes: 120))
            #expect(await headUnit.file(appID: "files", name: "song.mp3") == Self.bytes(120))

            let cover = SDLArtwork(bytes: Self.bytes(400, seed: 9), format: .png)
            let same = SDLArtwork(bytes: Self.bytes(400, seed: 9), format: .png)
            let other = SDLArtwork(bytes: Self.bytes(400, seed: 10), format: .png)
            #expect(cover.name == same.name)
            #expect(cover.name != other.name)
            #expect(cover.image == SDLImage(value: cover.name, imageType: .dynamic, isTemplate: false))
            #expect(try await files.upload(cover) == .uploaded(bytes: 400))
            #expect(try await files.upload(same) == .alreadyOnHeadUnit)
            #expect(try await files.upload(SDLArtwork.staticIcon(.album)) == .staticIcon)
            #expect(SDLArtwork.staticIcon(.album).image == SDLImage(value: "0x21", imageType: .static, isTemplate: true))
            // song, song again, the cover: nothing for the repeated artwork or the static icon.
            #expect(await Self.putFiles(headUnit, appID: "files").count == 3)
        }
    }

    @Test func progressAsAStreamAndCancellationStopTheRest() async throws {
        let headUnit = Self.headUnit(mtu: 1_024)
        var configuration = Self.configuration(headUnit)
        configuration.files.maxChunksInFlight = 2
        try await withSDLManager(configuration) { manager in
            let big = Self.bytes(200_000)
            let upload = manager.files.startUpload(SDLFile(name: "cancelled", bytes: big, type: .binary))
            for await step in upload.progress where step.bytesConfirmed > 0 {
                upload.cancel()
                break
            }
            let error = await expectSDLError(SDLFileError.self) { try await upload.outcome() }
            guard case .cancelled(let name, let confirmed, let total)? = error else {
                Issue.record("expected a cancellation, got \(String(describing: error))")
                return
            }
            #expect(name == "cancelled" && total == big.count)
            #expect(confirmed > 0 && confirmed < big.count)
            // The head unit holds what was confirmed (and the chunks already in flight), never less.
            let held = await headUnit.storedBytes(appID: "files", name: "cancelled") ?? 0
            #expect(held >= confirmed && held < big.count)
            #expect(await manager.files.hasFile(named: "cancelled") == false)
            #expect(await headUnit.files(appID: "files").contains("cancelled") == false)
        }
    }

    @Test(arguments: [SDLFileFault.answer(.genericError), .corrupt])
    func aRefusedChunkFailsWithWhatWasConfirmedAndARetryResumes(fault: SDLFileFault) async throws {
        let headUnit = Self.headUnit(mtu: 1_024)
        try await withSDLManager(Self.configuration(headUnit, retries: 0)) { manager in
            let data = Self.bytes(20_000)
            let file = SDLFile(name: "faulty", bytes: data, type: .binary)
            let chunk = await manager.files.chunkSize(for: file, totalBytes: data.count)
            await headUnit.injectFileFault(fault, appID: "files", onChunk: 3)
            let error = await expectSDLError(SDLFileError.self) { try await manager.files.upload(file) }
            let code: SDLResult = fault == .corrupt ? .corruptedData : .genericError
            guard case .failed("faulty", let confirmed, 20_000, .refused(code, _))? = error else {
                Issue.record("unexpected \(String(describing: error))")
                return
            }
            #expect(confirmed == 2 * chunk)
            #expect(await headUnit.storedBytes(appID: "files", name: "faulty") == 2 * chunk)
            // The same call again resumes at the confirmed offset.
            let before = await Self.putFiles(headUnit, appID: "files").count
            let outcome183 = try await manager.files.upload(file)
            #expect(outcome183 == .uploaded(bytes: 20_000))
            #expect(await Self.putFiles(headUnit, appID: "files").dropFirst(before).first?.offset == 2 * chunk)
            #expect(await headUnit.file(appID: "files", name: "faulty") == data)
        }
    }

    @Test func theConfiguredRetryRecoversFromAFailedChunk() async throws {
        let headUnit = Self.headUnit(mtu: 1_024)
        try await withSDLManager(Self.configuration(headUnit, retries: 1)) { manager in
            let data = Self.bytes(10_000)
            await headUnit.injectFileFault(.answer(.genericError), appID: "files", onChunk: 2)
            let outcome194 = try await manager.files.upload(SDLFile(name: "retried", bytes: data, type: .binary))
            #expect(outcome194 == .uploaded(bytes: 10_000))
            #expect(await headUnit.file(appID: "files", name: "retried") == data)
        }
    }

    @Test func anUnansweredChunkTimesOutWithWhatWasConfirmed() async throws {
        let headUnit = Self.headUnit(mtu: 1_024)
        let clock = ManualClock()
        var configuration = Self.configuration(headUnit, retries: 0)
        configuration.session.clock = SDLClock(clock)
        configuration.requestTimeout = .seconds(5)
        let events = headUnit.events()
        try await withSDLManager(configuration) { manager in
            let file = SDLFile(name: "silent", bytes: Self.bytes(10_000), type: .binary)
            let chunk = await manager.files.chunkSize(for: file, totalBytes: 10_000)
            await headUnit.injectFileFault(.noAnswer, appID: "files", onChunk: 2)
            let upload = manager.files.startUpload(file)
            var putFiles = 0
            for await event in events {
                if case .requestReceived("files", "PutFile") = event { putFiles += 1 }
                if putFiles == 2 { break }
            }
            clock.advance(by: .seconds(6))
            let error = await expectSDLError(SDLFileError.self) { try await upload.outcome() }
            #expect(error == .failed(name: "silent", confirmedBytes: chunk, totalBytes: 10_000, reason: .timedOut))
        }
    }

    @Test(arguments: [true, false])
    func aDropInTheMiddleOfA5MBUploadIsHonestAndTheRetryAfterReconnectionSucceeds(persistent: Bool) async throws {
        let headUnit = Self.headUnit()
        try await withSDLManager(Self.configuration(headUnit, retries: 0)) { manager in
            let data = Self.bytes(5 * 1024 * 1024)
            let file = SDLFile(name: "big.bin", bytes: data, type: .binary, persistent: persistent)
            let chunk = await manager.files.chunkSize(for: file, totalBytes: data.count)
            await headUnit.injectFileFault(.disconnect, appID: "files", onChunk: 20)
            let states = manager.stateChanges()
            var failure: SDLFileError?
            do throws(SDLFileError) {
                try await detailed(SDLFileError.self) { try await manager.files.upload(file) }
            } catch {
                failure = error
            }
            guard case .failed("big.bin", let confirmed, let total, let reason)? = failure, case .connectionLost = reason else {
                Issue.record("unexpected \(String(describing: failure))")
                return
            }
            #expect(total == data.count)
            // Only answered chunks count: at most the 19 before the drop, whole chunks only.
            #expect(confirmed > 0 && confirmed <= 19 * chunk && confirmed % chunk == 0)
            #expect(await manager.files.hasFile(named: "big.bin") == false)
            #expect(await reconnected(states, clock: manager.manualClock))
            // A persistent partial file stays on the head unit (maybe more than was confirmed:
            // answers lost with the connection); an ephemeral one is gone.
            let held = await headUnit.storedBytes(appID: "files", name: "big.bin")
            let expectedHeld: Int? = persistent ? 19 * chunk : nil
            #expect(held == expectedHeld)
            let before = await Self.putFiles(headUnit, appID: "files").count
            let outcome = try await manager.files.upload(file)
            #expect(outcome == .uploaded(bytes: data.count))
            let retried = await Self.putFiles(headUnit, appID: "files").dropFirst(before)
            // The retry resumes at the confirmed offset; where the head unit held other than that,
            // it is told INVALID_DATA and starts over.
            #expect(retried.first?.offset == confirmed)
            let restarted = held != confirmed
            let secondOffset = retried.dropFirst().first?.offset
            #expect(!restarted || secondOffset == 0)
            #expect(await headUnit.file(appID: "files", name: "big.bin") == data)
            #expect(await manager.files.hasFile(named: "big.bin"))
        }
    }

    @Test func batchesReportEachFileAndMayStopAtTheFirstFailure() async throws {
        let headUnit = Self.headUnit(quota: 50_000)
        try await withSDLManager(Self.configuration(headUnit)) { manager in
            let batch = [
                SDLFile(name: "a", bytes: Self.bytes(10_000), type: .binary),
                SDLFile(name: "b", bytes: Self.bytes(60_000), type: .binary),
                SDLFile(name: "c", bytes: Self.bytes(10_000), type: .binary),
            ]
            let fractions = Locked<[Double]>([])
            let results = await manager.files.upload(batch) { step in fractions.withLock { $0.append(step.fraction) } }
            #expect(results.map { (try? $0.get()) != nil } == [true, false, true])
            #expect(fractions.current.last == 1)
            let stopped = await manager.files.upload(
                [
                    SDLFile(name: "d", bytes: Self.bytes(60_000), type: .binary), SDLFile(name: "e", bytes: Self.bytes(10), type: .binary),
                ], stopOnFailure: true)
            #expect(stopped.last.map { if case .failure(let error) = $0, case .cancelled? = error.underlying as? SDLFileError { true } else { false } } == true)
            let deleted = await manager.files.delete(["a", "nope", "c"])
            #expect(deleted.map { (try? $0.get()) != nil } == [true, false, true])
            #expect(await manager.files.remoteFileNames.isEmpty)
            #expect(await manager.files.bytesAvailable == 50_000)
        }
    }

    @Test func listFilesAtStartKnowsPersistentFilesAndARefusalDoesNotBlockReady() async throws {
        let headUnit = Self.headUnit(quota: 100_000)
        try await withSDLManager(Self.configuration(headUnit)) { manager in
            try await manager.files.upload(SDLFile(name: "kept", bytes: Self.bytes(1_000), type: .binary, persistent: true))
            try await manager.files.upload(SDLFile(name: "gone", bytes: Self.bytes(1_000), type: .binary))
        }
        try await withSDLManager(Self.configuration(headUnit)) { manager in
            #expect(await manager.files.remoteFileNames == ["kept"])
            #expect(await manager.files.bytesAvailable == 99_000)
        }
        var policy = SDLHeadUnitPolicy.sdlCoreDefault
        policy.groups["Base-4"]?["ListFiles"] = nil
        await headUnit.setPolicy(policy)
        try await withSDLManager(Self.configuration(headUnit)) { manager in
            #expect(manager.state == .ready)
            #expect(await manager.files.remoteFileNames.isEmpty)
        }
    }
}

/// The app icon: uploaded and set while the manager starts, unless resumed or not showable;
/// a cloud app's icon by URL.
@Suite(.timeLimit(.minutes(1)), .runsManagers) struct AppIconTests {
    final class FakeHTTP: SDLHTTPClient {
        let asked = Mutex<[String]>([])
        let body: [UInt8]
        init(body: [UInt8]) { self.body = body }
        func send(_ request: SDLHTTPRequest) async throws -> SDLHTTPResponse {
            asked.withLock { $0.append(request.url) }
            return SDLHTTPResponse(status: 200, body: body)
        }
    }

    @Test func theIconIsUploadedAndSetBeforeReadyAndNotAgainWhenResumed() async throws {
        let headUnit = SDLHeadUnitEmulator()
        let icon = FileManagerTests.bytes(3_000, seed: 3)
        var configuration = FileManagerTests.configuration(headUnit, appID: "iconic")
        configuration.appIcon = SDLArtwork(bytes: icon, format: .png, name: "icon.png", persistent: true)
        try await withSDLManager(configuration) { manager in
            #expect(manager.registerResponse?.iconResumed == false)
        }
        #expect(await headUnit.appIcon(appID: "iconic") == icon)
        let first = await headUnit.recordedRPCs(appID: "iconic").filter { $0.direction == "in" }.map(\.functionName)
        #expect(first.prefix(5) == ["RegisterAppInterface", "GetSystemCapability", "ListFiles", "PutFile", "SetAppIcon"])
        let count = first.count
        try await withSDLManager(configuration) { manager in
            #expect(manager.registerResponse?.iconResumed == true)
        }
        let second = await headUnit.recordedRPCs(appID: "iconic").filter { $0.direction == "in" }.map(\.functionName).dropFirst(count)
        #expect(!second.contains("PutFile") && !second.contains("SetAppIcon"))
    }

    @Test func aFailedIconDoesNotBlockReadyAndADisplayWithoutImagesGetsNone() async throws {
        let headUnit = SDLHeadUnitEmulator()
        await headUnit.injectFileFault(.answer(.genericError), appID: "broken")
        var configuration = FileManagerTests.configuration(headUnit, appID: "broken", retries: 0)
        configuration.appIcon = SDLArtwork(bytes: FileManagerTests.bytes(100), format: .png)
        try await withSDLManager(configuration) { manager in
            #expect(manager.state == .ready)
        }
        #expect(await headUnit.appIcon(appID: "broken") == nil)

        // RPC 5.0, no dynamic images: the legacy display model says so.
        var emulator = SDLHeadUnitEmulator.Configuration()
        guard case .object(let members) = emulator.capabilities else { return }
        emulator.capabilities = .object(
            members.map { member in
                switch member.key {
                case "syncMsgVersion":
                    return .init(
                        key: member.key, value: .object([.init(key: "majorVersion", value: .integer(5)), .init(key: "minorVersion", value: .integer(0))]))
                case "displayCapabilities":
                    guard case .object(let display) = member.value else { return member }
                    return .init(key: member.key, value: .object(display.map { $0.key == "graphicSupported" ? .init(key: $0.key, value: .bool(false)) : $0 }))
                default:
                    return member
                }
            })
        let plain = SDLHeadUnitEmulator(configuration: emulator)
        var plainConfiguration = FileManagerTests.configuration(plain, appID: "plain")
        plainConfiguration.appIcon = SDLArtwork(bytes: FileManagerTests.bytes(100), format: .png)
        try await withSDLManager(plainConfiguration) { _ in }
        #expect(await plain.requestsReceived(from: "plain").contains("PutFile") == false)
    }

    @Test func aCloudAppAnswersIconURLThroughItsHTTPClient() async throws {
        let headUnit = SDLHeadUnitEmulator()
        let icon = FileManagerTests.bytes(2_000, seed: 5)
        let http = FakeHTTP(body: icon)
        var configuration = FileManagerTests.configuration(headUnit, appID: "cloud")
        configuration.httpClient = http
        // Only the app icon here (the lock screen's logo is LockScreenTests').
        configuration.lockScreen.showDeviceLogo = false
        let events = headUnit.events()
        try await withSDLManager(configuration) { _ in
            try await headUnit.requestIcon(appID: "cloud", url: "https://example.com/icon.png")
            for await event in events {
                if case .requestReceived("cloud", "SystemRequest") = event { break }
            }
        }
        #expect(http.asked.withLock { $0 } == ["https://example.com/icon.png"])
        #expect(await headUnit.appIcon(appID: "cloud") == icon)
        let request = await headUnit.recordedRPCs(appID: "cloud").last { $0.direction == "in" && $0.functionName == "SystemRequest" }
        #expect(request?.parameters?["requestType"] == .string("ICON_URL"))
        #expect(request?.parameters?["fileName"] == .string("https://example.com/icon.png"))
    }
}

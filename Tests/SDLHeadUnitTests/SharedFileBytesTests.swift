import SDLProtocol
import SDLRPC
import SDLTestSupport
import SmartDeviceLink
import Testing

@testable import SDLHeadUnit

/// A fleet's vehicles hold the files they all received the same once, and answer as before.
@Suite(.timeLimit(.minutes(1))) struct SharedFileBytesTests {
    static func baseAddress(_ bytes: [UInt8]?) -> UnsafeRawPointer? {
        bytes?.withUnsafeBytes { $0.baseAddress }
    }

    @Test func vehiclesOfAFleetHoldTheSameFileOnce() async throws {
        let shared = SDLSharedFileBytes()
        var configuration = SDLHeadUnitEmulator.Configuration()
        configuration.sharedFileBytes = shared
        let first = SDLHeadUnitEmulator(configuration: configuration)
        let second = SDLHeadUnitEmulator(configuration: configuration)
        let icon = (0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let other = [UInt8](repeating: 1, count: 4_096)
        var apps: [TestApp] = []
        for headUnit in [first, second] {
            let app = try await TestApp.register(to: headUnit, appID: "fleet")
            apps.append(app)
            let crc = Int(SDLCRC32.checksum(icon))
            #expect(try await app.client.send(PutFile(syncFileName: "icon.png", fileType: .graphicPng, crc: crc), bulkData: icon).resultCode == .success)
            // In two chunks, without a CRC: the same bytes once complete.
            _ = try await app.client.send(PutFile(syncFileName: "copy.png", fileType: .graphicPng, offset: 0, length: 4_096), bulkData: Array(icon[..<1_000]))
            _ = try await app.client.send(
                PutFile(syncFileName: "copy.png", fileType: .graphicPng, offset: 1_000, length: 3_096), bulkData: Array(icon[1_000...]))
            _ = try await app.client.send(PutFile(syncFileName: "other.bin", fileType: .binary), bulkData: other)
            #expect(try await app.client.send(ListFiles()).filenames == ["copy.png", "icon.png", "other.bin"])
        }
        for (headUnit, name) in [(first, "icon.png"), (second, "icon.png"), (first, "copy.png"), (second, "copy.png")] {
            #expect(await headUnit.file(appID: "fleet", name: name) == icon)
        }
        #expect(await Self.baseAddress(first.file(appID: "fleet", name: "icon.png")) == Self.baseAddress(second.file(appID: "fleet", name: "copy.png")))
        #expect(await second.file(appID: "fleet", name: "other.bin") == other)
        #expect(shared.count == 2)
        for app in apps { await app.close() }
    }

    @Test func contentsWithTheSameSizeAndCRCButOtherBytesStayApart() {
        let shared = SDLSharedFileBytes()
        let held = shared.shared([1, 2, 3], crc: 42)
        #expect(held == [1, 2, 3])
        // A CRC collision (forced here): the new bytes are kept as they came.
        #expect(shared.shared([4, 5, 6], crc: 42) == [4, 5, 6])
        #expect(shared.shared([1, 2, 3], crc: 42) == [1, 2, 3])
        #expect(shared.count == 1)
    }

    @Test func theOldestContentIsForgottenFirst() {
        let shared = SDLSharedFileBytes(limit: 2)
        let a = shared.shared([1])
        _ = shared.shared([2])
        _ = shared.shared([3])
        #expect(shared.count == 2)
        // [1] was forgotten: an identical array comes back as the caller's own.
        let again = [UInt8]([1])
        #expect(Self.baseAddress(shared.shared(again)) == Self.baseAddress(again))
        #expect(Self.baseAddress(shared.shared([3])) != nil)
        #expect(a == [1])
    }
}

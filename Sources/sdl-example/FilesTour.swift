import SDLRPC
import SmartDeviceLink

/// The file manager: the app icon at start, three artworks, a 2 MB file with progress, the
/// list, and deletes. Uploads wait for FULL: SDL Core allows only 5 PutFiles in NONE.
struct FilesTour {
    let place: TourPlace
    var driver: Driver { place.driver }

    func run() async -> Bool {
        let steps = Steps()
        say("Tour: files")
        var configuration = place.configuration()
        configuration.appIcon = SDLArtwork(
            bytes: SolidPNG.make(width: 70, height: 70, rgb: (0x1E, 0x88, 0xE5)), format: .png, name: "sdl-example-icon.png", persistent: true)
        guard let manager = await place.start(configuration, steps: steps) else { return false }
        let files = manager.files
        let resumed = manager.registerResponse?.iconResumed == true
        let iconThere = await files.hasFile(named: "sdl-example-icon.png")
        if resumed {
            steps.pass("app icon: the head unit kept it from an earlier run")
        } else if iconThere {
            steps.pass("app icon: uploaded and set while starting")
        } else {
            steps.fail("app icon: not on the head unit")
        }
        steps.note(
            "files on the head unit: \(await files.remoteFileNames.sorted()), \(await files.bytesAvailable.map { "\($0) bytes free" } ?? "space unknown")")

        if await driver.activate(manager, steps: steps) {
            await uploads(files, steps: steps)
        }
        return await place.finish("files", [manager], steps: steps)
    }

    func uploads(_ files: SDLFileManager, steps: Steps) async {
        let colours: [(UInt8, UInt8, UInt8)] = [(0xE5, 0x39, 0x35), (0x43, 0xA0, 0x47), (0xFB, 0xC0, 0x2D)]
        let artworks = colours.map { SDLArtwork(bytes: SolidPNG.make(width: 185, height: 185, rgb: $0), format: .png) }
        for artwork in artworks {
            do {
                let outcome = try await files.upload(artwork)
                steps.pass("artwork \(artwork.name): \(outcome)")
            } catch {
                steps.fail("artwork \(artwork.name): \(error)")
            }
        }

        let big = SDLFile(name: "sdl-example-2mb.bin", bytes: (0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }, type: .binary, overwrite: true)
        let upload = files.startUpload(big)
        var reported = 0
        for await step in upload.progress where Int(step.fraction * 4) > reported {
            reported = Int(step.fraction * 4)
            steps.note("2 MB file: \(step.bytesConfirmed) of \(step.totalBytes) bytes confirmed")
        }
        do {
            let outcome = try await upload.outcome()
            steps.pass("2 MB file: \(outcome)")
        } catch {
            steps.fail("2 MB file: \(error)")
        }

        do {
            let names = try await files.refresh()
            let expected = Set(artworks.map(\.name) + [big.name])
            expected.isSubset(of: names)
                ? steps.pass("ListFiles has the three artworks and the 2 MB file") : steps.fail("ListFiles lacks \(expected.subtracting(names).sorted())")
        } catch {
            steps.fail("ListFiles: \(error)")
        }
        let deleted = await files.delete(artworks.map(\.name) + [big.name])
        let failures = deleted.filter { (try? $0.get()) == nil }.count
        failures == 0 ? steps.pass("deleted the artworks and the 2 MB file") : steps.fail("\(failures) deletes failed")
        let left = await files.remoteFileNames
        left.contains(big.name) ? steps.fail("the 2 MB file is still listed") : steps.pass("files left: \(left.sorted())")
    }
}

/// A solid-colour PNG, written here so the example needs no image files: IHDR, one IDAT with
/// stored (uncompressed) deflate blocks, IEND.
enum SolidPNG {
    static func make(width: Int, height: Int, rgb: (UInt8, UInt8, UInt8)) -> [UInt8] {
        var raw: [UInt8] = []
        for _ in 0..<height {
            raw.append(0)  // filter: none
            for _ in 0..<width { raw += [rgb.0, rgb.1, rgb.2] }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, raw.count - offset)
            let last: UInt8 = offset + count == raw.count ? 1 : 0
            zlib += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        zlib += bigEndian((b << 16) | a)
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0])
        png += chunk("IDAT", zlib)
        png += chunk("IEND", [])
        return png
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(SDLCRC32.checksum(typed))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

import Foundation
import SDLProtocol
import SDLRPC

/// A file for the head unit's app storage (PutFile): bytes or a local path, a name, a type.
public struct SDLFile: Sendable, Hashable {
    /// Where a file's bytes come from.
    public enum Source: Sendable, Hashable {
        /// Bytes already in memory.
        case bytes([UInt8])
        /// Read when the upload starts.
        case path(String)
    }

    /// The name on the head unit (`syncFileName`).
    public var name: String
    /// The bytes to upload, in memory or at a local path.
    public var source: Source
    /// The file's type for PutFile (PNG, JPEG, BMP, WAVE, MP3, JSON, binary...).
    public var type: FileType
    /// Kept across ignition cycles (not guaranteed when the head unit is short of space);
    /// otherwise removed when the app unregisters.
    public var isPersistent: Bool
    /// Upload even when a file of this name is already on the head unit.
    public var overwrite: Bool

    /// A file from bytes in memory; `persistent` keeps it across ignition cycles, `overwrite`
    /// replaces a file of the same name on the head unit.
    public init(name: String, bytes: [UInt8], type: FileType, persistent: Bool = false, overwrite: Bool = false) {
        self.name = name
        self.source = .bytes(bytes)
        self.type = type
        self.isPersistent = persistent
        self.overwrite = overwrite
    }

    /// A file read from `path` when the upload starts; `persistent` keeps it across ignition
    /// cycles, `overwrite` replaces a file of the same name on the head unit.
    public init(name: String, path: String, type: FileType, persistent: Bool = false, overwrite: Bool = false) {
        self.name = name
        self.source = .path(path)
        self.type = type
        self.isPersistent = persistent
        self.overwrite = overwrite
    }

    /// The bytes to send.
    func load() throws(SDLFileError) -> [UInt8] {
        switch source {
        case .bytes(let bytes): return bytes
        case .path(let path):
            guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
            return [UInt8](data)
        }
    }
}

/// An image for the head unit: uploaded bytes (PNG, JPEG or BMP), or one of the head unit's
/// built-in icons, which is never uploaded. Its name comes from its content unless given, so
/// the same picture is uploaded once however often it is used.
public struct SDLArtwork: Sendable, Hashable {
    /// The image formats head units accept for uploaded artwork.
    public enum Format: Sendable, Hashable {
        /// PNG, JPEG or BMP image data.
        case png, jpeg, bmp

        var fileType: FileType {
            switch self {
            case .png: .graphicPng
            case .jpeg: .graphicJpeg
            case .bmp: .graphicBmp
            }
        }
    }

    enum Kind: Sendable, Hashable {
        case file(SDLFile)
        case staticIcon(SDLStaticIconName)
    }

    let kind: Kind
    /// The head unit may recolour a template image to its theme.
    public var isTemplate: Bool

    /// An image from bytes.
    ///
    /// - Parameters:
    ///   - bytes: the image, in `format`.
    ///   - format: PNG, JPEG or BMP.
    ///   - name: the name on the head unit; by default one derived from the bytes.
    ///   - isTemplate: whether the head unit may recolour it to its theme.
    ///   - persistent: whether the head unit keeps it across ignition cycles.
    public init(bytes: [UInt8], format: Format, name: String? = nil, isTemplate: Bool = false, persistent: Bool = false) {
        let file = SDLFile(name: name ?? Self.contentName(of: bytes), bytes: bytes, type: format.fileType, persistent: persistent)
        self.kind = .file(file)
        self.isTemplate = isTemplate
    }

    /// Reads the file at once, to derive its name from its content unless `name` is given.
    public init(path: String, format: Format, name: String? = nil, isTemplate: Bool = false, persistent: Bool = false) throws {
        do throws(SDLFileError) {
            if let name {
                self.kind = .file(SDLFile(name: name, path: path, type: format.fileType, persistent: persistent))
            } else {
                let bytes = try SDLFile(name: "", path: path, type: format.fileType).load()
                self.kind = .file(SDLFile(name: Self.contentName(of: bytes), bytes: bytes, type: format.fileType, persistent: persistent))
            }
            self.isTemplate = isTemplate
        } catch {
            throw SDLError(error)
        }
    }

    /// A built-in icon of the head unit (`StaticIconName`): shown without an upload.
    public static func staticIcon(_ icon: SDLStaticIconName, isTemplate: Bool = true) -> SDLArtwork {
        SDLArtwork(kind: .staticIcon(icon), isTemplate: isTemplate)
    }

    private init(kind: Kind, isTemplate: Bool) {
        self.kind = kind
        self.isTemplate = isTemplate
    }

    /// The name on the head unit (the icon's value for a static icon).
    public var name: String {
        switch kind {
        case .file(let file): file.name
        case .staticIcon(let icon): icon.rawValue
        }
    }

    /// Whether this is one of the head unit's built-in icons, which is never uploaded.
    public var isStaticIcon: Bool {
        if case .staticIcon = kind { true } else { false }
    }

    /// The file to upload; nil for a static icon.
    public var file: SDLFile? {
        if case .file(let file) = kind { file } else { nil }
    }

    /// How RPCs refer to it (Show.graphic, SoftButton.image, Alert.alertIcon...).
    public var image: SDLImage {
        SDLImage(value: name, imageType: isStaticIcon ? .static : .dynamic, isTemplate: isTemplate)
    }

    /// 96 bits of two independent checksums (CRC-32 and 64-bit FNV-1a) and the size: the same
    /// bytes always get the same name, different pictures practically never share one.
    static func contentName(of bytes: [UInt8]) -> String {
        var fnv: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            fnv ^= UInt64(byte)
            fnv &*= 0x0000_0100_0000_01B3
        }
        let crc = SDLCRC32.checksum(bytes)
        return "art-" + hex(fnv, width: 16) + hex(UInt64(crc), width: 8) + "-\(bytes.count)"
    }

    private static func hex(_ value: UInt64, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

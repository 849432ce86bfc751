import Foundation

/// Where the tests find the data that is not part of the repository: the nine public RPC specs
/// (`MOBILE_API.xml`, BSD, published by the SmartDeviceLink Consortium) and recordings of SDL
/// Core sessions. Tests that need them are skipped, saying how to get them, when they are absent.
public enum SharedData {
    /// Every published spec version the tests read.
    public static let specVersions = ["4.4.0", "4.5.0", "4.5.1", "5.0.0", "5.1.0", "6.0.0", "7.0.0", "7.1.0", "8.0.0"]

    /// This file is `<root>/Tests/SDLTestSupport/SharedData.swift`.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// `$SDL_RPC_SPEC_DIR`; else `../shared/rpc_spec` beside the package when it is there; else
    /// `.sdl-data/rpc_spec`, where `Scripts/fetch-rpc-specs.sh` puts them. Each version in
    /// `<directory>/<version>/MOBILE_API.xml`.
    public static var specDirectory: String {
        if let value = ProcessInfo.processInfo.environment["SDL_RPC_SPEC_DIR"], !value.isEmpty { return value }
        let shared = URL(fileURLWithPath: packageRoot + "/../shared/rpc_spec").standardized.path
        if FileManager.default.fileExists(atPath: shared) { return shared }
        return packageRoot + "/.sdl-data/rpc_spec"
    }

    /// The path of `<version>/<file>` in the spec directory, or nil when it is not there.
    public static func specFile(_ version: String, _ file: String = "MOBILE_API.xml") -> String? {
        let path = "\(specDirectory)/\(version)/\(file)"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Why a test that needs spec `version` did not run, and the one command that fixes it.
    public static func missingSpec(_ version: String) -> String {
        "the RPC spec \(version) is not in \(specDirectory): run Scripts/fetch-rpc-specs.sh (downloads the public rpc_spec tags and "
            + "checks each against spec/rpc_spec.sha256), or set SDL_RPC_SPEC_DIR to a folder of <version>/MOBILE_API.xml"
    }

    /// `$SDL_HMI_SPEC_DIR`, else `../shared/sdl_core_8.2.0` beside the package, else
    /// `.sdl-data/sdl_core_8.2.0` (`Scripts/fetch-rpc-specs.sh`): SDL Core 8.2.0's `HMI_API.xml`
    /// and `HMI_API.xsd`.
    public static var hmiSpecDirectory: String {
        if let value = ProcessInfo.processInfo.environment["SDL_HMI_SPEC_DIR"], !value.isEmpty { return value }
        let shared = URL(fileURLWithPath: packageRoot + "/../shared/sdl_core_8.2.0").standardized.path
        if FileManager.default.fileExists(atPath: shared) { return shared }
        return packageRoot + "/.sdl-data/sdl_core_8.2.0"
    }

    /// The path of `file` (`HMI_API.xml`, `HMI_API.xsd`) of SDL Core 8.2.0, or nil when it is not there.
    public static func hmiSpecFile(_ file: String = "HMI_API.xml") -> String? {
        let path = "\(hmiSpecDirectory)/\(file)"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Why a test that needs SDL Core's HMI spec did not run.
    public static func missingHMISpec(_ file: String = "HMI_API.xml") -> String {
        "SDL Core 8.2.0's \(file) is not in \(hmiSpecDirectory): run Scripts/fetch-rpc-specs.sh (also fetches sdl_core's "
            + "interface files at tag 8.2.0, checked against spec/rpc_spec.sha256), or set SDL_HMI_SPEC_DIR"
    }

    /// `$SDL_CAPTURES_DIR`, else `../shared/captures` beside the package: recorded SDL Core
    /// 8.2 sessions (`<session>/<direction>.bin` and the independent decoding `.jsonl`).
    public static var capturesDirectory: String {
        if let value = ProcessInfo.processInfo.environment["SDL_CAPTURES_DIR"], !value.isEmpty { return value }
        return URL(fileURLWithPath: packageRoot + "/../shared/captures").standardized.path
    }

    /// Why a test that needs a capture did not run.
    public static func missingCapture(_ path: String) -> String {
        "the SDL Core capture \(path) is not here: the recordings are not published; set SDL_CAPTURES_DIR to a folder of "
            + "<session>/<direction>.bin and .jsonl to run these (the protocol is covered without them by the other suites)"
    }
}

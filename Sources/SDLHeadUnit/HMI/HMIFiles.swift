import Foundation

/// The app files an HMI is shown, written where it can load them: `<folder>/<appID>/<name>`.
enum HMIFiles {
    /// The file's full path, or nil when it could not be written (the name then goes as it is).
    static func write(_ bytes: [UInt8], name: String, appID: String, in folder: String) -> String? {
        let directory = URL(fileURLWithPath: folder).appendingPathComponent(appID.replacingOccurrences(of: "/", with: "_"), isDirectory: true)
        let file = directory.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: file, options: .atomic)
            return file.path
        } catch {
            return nil
        }
    }
}

import Foundation
import SDLSpec
import Testing

@testable import SDLCodegen

/// Generating is deterministic, and writing touches only files whose bytes change.
@Suite struct OutputTests {
    @Test(arguments: ["Constructs", "Naming"])
    func twoRunsGiveIdenticalBytes(_ fixture: String) throws {
        let first = try TestSupport.generate(try TestSupport.loadFixture(fixture))
        let second = try TestSupport.generate(try TestSupport.loadFixture(fixture))
        #expect(first == second)
    }

    @Test func twoRunsOfARealSpecGiveIdenticalBytes() throws {
        let spec = try TestSupport.loadRealSpec("8.0.0")
        let first = try Generator.generate(spec, options: GeneratorOptions(), templates: TemplateSet())
        let second = try Generator.generate(try TestSupport.loadRealSpec("8.0.0"), options: GeneratorOptions(), templates: TemplateSet())
        // Same order too, not just the same set.
        #expect(first.files == second.files)
    }

    /// The identity of a file on disk: a rewrite (a new file renamed into place) changes the inode.
    private struct FileStamp: Equatable {
        var inode: UInt64
        var modified: Date

        init(_ path: String) throws {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
            modified = attributes[.modificationDate] as? Date ?? .distantPast
        }
    }

    private func stamps(_ directory: String) throws -> [String: FileStamp] {
        var stamps: [String: FileStamp] = [:]
        for name in RenderModelBuilder.fileNames { stamps[name] = try FileStamp("\(directory)/\(name)") }
        return stamps
    }

    private func generatedFiles() throws -> [OutputFile] {
        try Generator.generate(try TestSupport.loadFixture("Constructs"), options: GeneratorOptions(), templates: TemplateSet()).files
    }

    @Test func writingAgainLeavesUnchangedFilesAlone() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { TestSupport.removeTemporaryDirectory(directory) }
        let output = directory + "/nested/Generated"
        let files = try generatedFiles()

        let first = try OutputWriter.write(files, to: output)
        #expect(first.changed == RenderModelBuilder.fileNames)
        #expect(first.unchanged.isEmpty)
        for file in files {
            #expect(try TestSupport.read("\(output)/\(file.name)") == file.contents)
        }
        let before = try stamps(output)

        let second = try OutputWriter.write(files, to: output + "/")
        #expect(second.changed.isEmpty)
        #expect(second.unchanged == RenderModelBuilder.fileNames)
        #expect(try stamps(output) == before)
        // No temporary files left behind.
        #expect(TestSupport.fileNames(in: output, withSuffix: "") == Set(RenderModelBuilder.fileNames))
    }

    @Test func onlyChangedFilesAreRewritten() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { TestSupport.removeTemporaryDirectory(directory) }
        let files = try generatedFiles()
        _ = try OutputWriter.write(files, to: directory)
        try TestSupport.write("// edited by hand\n", to: directory + "/Structs.swift")
        let before = try stamps(directory)

        let report = try OutputWriter.write(files, to: directory)
        #expect(report.changed == ["Structs.swift"])
        #expect(report.unchanged == RenderModelBuilder.fileNames.filter { $0 != "Structs.swift" })
        let after = try stamps(directory)
        for name in RenderModelBuilder.fileNames where name != "Structs.swift" {
            #expect(after[name] == before[name], "\(name)")
        }
        #expect(try TestSupport.read(directory + "/Structs.swift") == files.first { $0.name == "Structs.swift" }?.contents)
    }

    @Test func checkModeListsStaleFilesAndWritesNothing() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { TestSupport.removeTemporaryDirectory(directory) }
        let files = try generatedFiles()

        // Nothing there yet: every file is stale, and not even the folder is created.
        let missing = directory + "/Generated"
        let empty = try OutputWriter.write(files, to: missing, checkOnly: true)
        #expect(empty.changed == RenderModelBuilder.fileNames)
        #expect(!FileManager.default.fileExists(atPath: missing))

        _ = try OutputWriter.write(files, to: directory)
        #expect(try OutputWriter.write(files, to: directory, checkOnly: true).changed.isEmpty)

        try TestSupport.write("// edited by hand\n", to: directory + "/Enums.swift")
        try FileManager.default.removeItem(atPath: directory + "/MobileAPI.swift")
        let before = try FileStamp(directory + "/Enums.swift")
        let report = try OutputWriter.write(files, to: directory, checkOnly: true)
        #expect(report.changed == ["Enums.swift", "MobileAPI.swift"])
        #expect(report.unchanged == ["Structs.swift", "Requests.swift", "Responses.swift", "Notifications.swift"])
        #expect(try FileStamp(directory + "/Enums.swift") == before)
        #expect(try TestSupport.read(directory + "/Enums.swift") == "// edited by hand\n")
        #expect(!FileManager.default.fileExists(atPath: directory + "/MobileAPI.swift"))
    }

    @Test func anUnwritableFolderIsAnError() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { TestSupport.removeTemporaryDirectory(directory) }
        // A file where the output folder should be.
        try TestSupport.write("", to: directory + "/file")
        #expect(throws: SpecError.self) {
            try OutputWriter.write(try generatedFiles(), to: directory + "/file/Generated")
        }
    }
}

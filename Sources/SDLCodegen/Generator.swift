import Dispatch
import SDLSpec

/// One file of output.
package struct OutputFile: Sendable, Hashable {
    package var name: String
    package var contents: String

    package init(name: String, contents: String) {
        self.name = name
        self.contents = contents
    }
}

/// The pipeline: validated spec → render model → templates → files.
package enum Generator {
    package struct Output: Sendable {
        package var files: [OutputFile]
        package var diagnostics: [Diagnostic]
    }

    /// Renders `spec`. Throws when the spec has errors, so nothing is written from a broken spec.
    package static func generate(_ spec: LoadedSpec, options: GeneratorOptions, templates: TemplateSet) throws(SpecError) -> Output {
        if spec.hasErrors {
            throw SpecError(spec.diagnostics)
        }
        var builder = RenderModelBuilder(document: spec.document, options: options, specSHA256: spec.sha256)
        let models = try builder.build()
        let rendered = render(models, with: templates)
        var files: [OutputFile] = []
        for (model, result) in zip(models, rendered) {
            files.append(OutputFile(name: model.fileName, contents: try result.get()))
        }
        return Output(files: files, diagnostics: spec.diagnostics + builder.diagnostics.all)
    }
}

extension Generator {
    /// Renders the files on all cores, biggest first so the long ones start early. Rendering is
    /// most of the generator's time, and the build plugin runs it on every spec change.
    static func render(_ models: [FileModel], with templates: TemplateSet) -> [Result<String, SpecError>] {
        let order = models.indices.sorted { models[$0].estimatedSize > models[$1].estimatedSize }
        let slots = Slots<Result<String, SpecError>>(count: models.count, initial: .success(""))
        DispatchQueue.concurrentPerform(iterations: models.count) { step in
            let index = order[step]
            slots[index] = Result { () throws(SpecError) -> String in try templates.render(models[index]) }
        }
        return slots.values
    }
}

/// `transform` applied to every element on all cores, results in order.
func concurrentMap<Element: Sendable, Value: Sendable>(_ elements: [Element], _ transform: @Sendable (Element) -> Value) -> [Value] {
    guard !elements.isEmpty else { return [] }
    let slots = Slots<Value?>(count: elements.count, initial: nil)
    DispatchQueue.concurrentPerform(iterations: elements.count) { index in
        slots[index] = transform(elements[index])
    }
    // Every slot was filled by its own iteration.
    return slots.values.compactMap { $0 }
}

/// Fixed slots that concurrent workers fill, each worker its own slot, so no lock is needed.
/// The memory is allocated once and written through its pointer: no Swift access to a shared
/// variable happens concurrently.
final class Slots<Value>: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<Value>

    init(count: Int, initial: Value) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: initial)
    }

    deinit {
        storage.deinitialize()
        storage.deallocate()
    }

    subscript(index: Int) -> Value {
        get { storage[index] }
        set { storage[index] = newValue }
    }

    var values: [Value] { Array(storage) }
}

/// Writes output files, touching only those whose bytes changed, so incremental builds stay
/// incremental; or, in check mode, lists the files that differ.
package enum OutputWriter {
    package struct Report: Sendable {
        /// Files written (or, when checking, that would be).
        package var changed: [String] = []
        package var unchanged: [String] = []
    }

    package static func write(_ files: [OutputFile], to directory: String, checkOnly: Bool = false) throws(SpecError) -> Report {
        var report = Report()
        if !checkOnly {
            do { try FileBytes.createDirectory(directory) } catch {
                throw SpecError([Diagnostic(.error, "cannot create the output folder: \(error)", at: nil)])
            }
        }
        for file in files {
            let path = directory.hasSuffix("/") ? directory + file.name : directory + "/" + file.name
            let bytes = Array(file.contents.utf8)
            let existing = FileBytes.exists(path) ? try? FileBytes.read(path) : nil
            if existing == bytes {
                report.unchanged.append(file.name)
                continue
            }
            report.changed.append(file.name)
            if !checkOnly {
                do { try FileBytes.write(bytes, to: path) } catch {
                    throw SpecError([Diagnostic(.error, "cannot write: \(error)", at: nil)])
                }
            }
        }
        return report
    }
}

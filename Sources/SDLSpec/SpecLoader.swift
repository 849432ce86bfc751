/// The spec pipeline's front door: bytes → raw XML → typed model → validated model.
package struct LoadedSpec: Sendable {
    /// The spec as written: the mobile API's interface, or the HMI API's interfaces.
    package var document: SpecDocument
    /// Every definition in one interface (`SpecDocument.combined`): for the HMI API with names
    /// qualified by interface (`Common.Result`, `UI.Show`).
    package var interface: Interface
    package var diagnostics: [Diagnostic]
    /// SHA-256 of the file's bytes, in lowercase hex.
    package var sha256: String
    package var path: String

    package var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

package enum SpecLoader {
    /// Reads, builds and validates the spec at `path`. Throws `SpecError` when the file cannot
    /// be read or is not a spec at all; validation findings are in `diagnostics`.
    package static func load(path: String, validate: Bool = true) throws(SpecError) -> LoadedSpec {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path)
        } catch {
            throw SpecError([Diagnostic(.error, "cannot read the spec: \(error)", at: nil)])
        }
        return try load(bytes: bytes, path: path, validate: validate)
    }

    package static func load(bytes: [UInt8], path: String, validate: Bool = true) throws(SpecError) -> LoadedSpec {
        let root: RawNode
        switch XMLReader.parse(bytes, path: path) {
        case .success(let node): root = node
        case .failure(let error): throw error
        }
        var builder = SpecBuilder(path: path)
        guard let document = builder.build(root) else {
            throw SpecError(builder.diagnostics.sorted)
        }
        var diagnostics = builder.diagnostics
        if validate {
            var validator = SpecValidator()
            validator.validate(document)
            diagnostics.append(contentsOf: validator.diagnostics.all)
        }
        return LoadedSpec(
            document: document, interface: document.combined, diagnostics: diagnostics.sorted, sha256: SHA256.hex(of: bytes),
            path: path)
    }
}

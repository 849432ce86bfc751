import CLibXML2

/// Validates a spec file against an XSD (`MOBILE_API.xsd`, shipped since 7.0.0) with libxml2.
package enum SchemaValidator {
    private final class Collector {
        var diagnostics: [Diagnostic] = []
        let fallbackPath: String
        init(fallbackPath: String) { self.fallbackPath = fallbackPath }
    }

    package static func validate(specPath: String, schemaPath: String) -> [Diagnostic] {
        LibXML2.initialize()
        let collector = Collector(fallbackPath: specPath)
        let context = Unmanaged.passUnretained(collector).toOpaque()
        let handler: xmlStructuredErrorFunc = { userData, error in
            guard let userData, let error else { return }
            let collector = Unmanaged<Collector>.fromOpaque(userData).takeUnretainedValue()
            let message = error.pointee.message.map { String(cString: $0) } ?? "schema error \(error.pointee.code)"
            let file = error.pointee.file.map { String(cString: $0) } ?? collector.fallbackPath
            let severity: Diagnostic.Severity = error.pointee.level == XML_ERR_WARNING ? .warning : .error
            collector.diagnostics.append(
                Diagnostic(
                    severity, message.trimmingCharacters(in: " \n\r\t"),
                    at: SourceLocation(file: file, line: max(1, Int(error.pointee.line)))))
        }

        guard let parserContext = xmlSchemaNewParserCtxt(schemaPath) else {
            return [Diagnostic(.error, "cannot open the schema", at: SourceLocation(file: schemaPath, line: 1))]
        }
        xmlSchemaSetParserStructuredErrors(parserContext, handler, context)
        let schema = xmlSchemaParse(parserContext)
        xmlSchemaFreeParserCtxt(parserContext)
        guard let schema else {
            return collector.diagnostics.isEmpty
                ? [Diagnostic(.error, "the schema is not a valid XSD", at: SourceLocation(file: schemaPath, line: 1))]
                : collector.diagnostics
        }
        defer { xmlSchemaFree(schema) }
        guard let validContext = xmlSchemaNewValidCtxt(schema) else {
            return [Diagnostic(.error, "libxml2 could not allocate a schema validator", at: nil)]
        }
        defer { xmlSchemaFreeValidCtxt(validContext) }
        xmlSchemaSetValidStructuredErrors(validContext, handler, context)

        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_BIG_LINES.rawValue)
        guard let document = xmlReadFile(specPath, nil, options) else {
            return [Diagnostic(.error, "the file is not well-formed XML", at: SourceLocation(file: specPath, line: 1))]
        }
        defer { xmlFreeDoc(document) }
        let result = xmlSchemaValidateDoc(validContext, document)
        withExtendedLifetime(collector) {}
        if result != 0 && collector.diagnostics.isEmpty {
            return [Diagnostic(.error, "the file does not match the schema", at: SourceLocation(file: specPath, line: 1))]
        }
        return collector.diagnostics
    }
}

import CLibXML2

/// Reads an XML file with libxml2 into `RawNode`s, keeping each element's line.
///
/// libxml2 is told never to touch the network, never to expand external entities and to keep
/// its own messages to itself: every problem comes back as a `Diagnostic`.
package enum XMLReader {
    private static let options = Int32(
        XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_BIG_LINES.rawValue | XML_PARSE_NOCDATA.rawValue
    )

    /// Parses `bytes`; `path` only names the file in diagnostics.
    package static func parse(_ bytes: [UInt8], path: String) -> Result<RawNode, SpecError> {
        LibXML2.initialize()
        guard !bytes.isEmpty else {
            return .failure(SpecError([Diagnostic(.error, "the file is empty", at: SourceLocation(file: path, line: 1))]))
        }
        guard bytes.count < Int(Int32.max) else {
            return .failure(SpecError([Diagnostic(.error, "the file is too large", at: SourceLocation(file: path, line: 1))]))
        }
        guard let context = xmlNewParserCtxt() else {
            return .failure(SpecError([Diagnostic(.error, "libxml2 could not allocate a parser", at: nil)]))
        }
        defer { xmlFreeParserCtxt(context) }
        context.pointee.sax.pointee.startElementNs = recordLine

        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                xmlCtxtReadMemory(context, chars.baseAddress, Int32(chars.count), path, nil, options)
            }
        }
        guard let document else {
            return .failure(SpecError([lastError(of: context, path: path)]))
        }
        defer { xmlFreeDoc(document) }
        if context.pointee.wellFormed == 0 {
            return .failure(SpecError([lastError(of: context, path: path)]))
        }
        guard let root = xmlDocGetRootElement(document) else {
            return .failure(SpecError([Diagnostic(.error, "the file has no root element", at: SourceLocation(file: path, line: 1))]))
        }
        return .success(convert(root))
    }

    private static func lastError(of context: xmlParserCtxtPtr, path: String) -> Diagnostic {
        guard let error = xmlCtxtGetLastError(context), error.pointee.code != 0 else {
            return Diagnostic(.error, "the file is not well-formed XML", at: SourceLocation(file: path, line: 1))
        }
        let message = error.pointee.message.map { String(cString: $0) } ?? "XML error \(error.pointee.code)"
        let line = max(1, Int(error.pointee.line))
        return Diagnostic(
            .error,
            message.trimmingCharacters(in: " \n\r\t"),
            at: SourceLocation(file: path, line: line)
        )
    }

    /// libxml2 keeps an element's line in 16 bits; past line 65535 `xmlGetLineNo` borrows a
    /// neighbouring text node's line (often the next line) or answers 65535, even with
    /// `XML_PARSE_BIG_LINES`. So each new element also gets its full line in `_private`.
    private static let recordLine: startElementNsSAX2Func = {
        context, name, prefix, uri, namespaceCount, namespaces, attributeCount, defaultedCount, attributes in
        let parser = context?.assumingMemoryBound(to: xmlParserCtxt.self)
        let parent = parser?.pointee.node
        xmlSAX2StartElementNs(
            context, name, prefix, uri, namespaceCount, namespaces, attributeCount, defaultedCount, attributes)
        if let node = parser?.pointee.node, node != parent, let line = parser?.pointee.input?.pointee.line, line > 0 {
            node.pointee._private = UnsafeMutableRawPointer(bitPattern: Int(line))
        }
    }

    private static func line(of element: xmlNodePtr) -> Int {
        if let recorded = element.pointee._private { return Int(bitPattern: recorded) }
        return Int(xmlGetLineNo(element))
    }

    private static func convert(_ element: xmlNodePtr) -> RawNode {
        var node = RawNode(name: string(element.pointee.name), line: line(of: element))
        var attribute = element.pointee.properties
        while let current = attribute {
            node.attributes.append(RawNode.Attribute(name: string(current.pointee.name), value: attributeValue(current)))
            attribute = current.pointee.next
        }
        var text = ""
        var child = element.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE:
                node.children.append(convert(current))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content {
                    text += String(cString: content)
                }
            default:
                break  // comments and processing instructions carry no meaning
            }
            child = current.pointee.next
        }
        node.text = text
        return node
    }

    /// The attribute's text. A reference to an entity the document declares stays as written
    /// (`&name;`): expanding it, as `xmlNodeListGetString` does, lets a few kilobytes of entity
    /// declarations grow into gigabytes. libxml2 has already turned character references and
    /// the predefined entities into text.
    private static func attributeValue(_ attribute: xmlAttrPtr) -> String {
        var value = ""
        var child = attribute.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_TEXT_NODE:
                if let content = current.pointee.content { value += String(cString: content) }
            case XML_ENTITY_REF_NODE:
                value += "&\(string(current.pointee.name));"
            default:
                break
            }
            child = current.pointee.next
        }
        return value
    }

    private static func string(_ pointer: UnsafePointer<xmlChar>?) -> String {
        guard let pointer else { return "" }
        return String(cString: pointer)
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        var view = Substring(self).unicodeScalars
        while let first = view.first, scalars.contains(first) { view.removeFirst() }
        while let last = view.last, scalars.contains(last) { view.removeLast() }
        return String(view)
    }
}

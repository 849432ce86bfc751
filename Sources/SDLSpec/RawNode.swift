/// An XML element as read from the file, before any meaning is given to it.
package struct RawNode: Sendable, Hashable {
    package struct Attribute: Sendable, Hashable {
        package var name: String
        package var value: String
    }

    package var name: String
    package var attributes: [Attribute]
    package var children: [RawNode]
    /// Text directly inside the element, with child elements' text left out.
    package var text: String
    package var line: Int

    package init(name: String, attributes: [Attribute] = [], children: [RawNode] = [], text: String = "", line: Int) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
        self.line = line
    }

    package subscript(attribute name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }
}

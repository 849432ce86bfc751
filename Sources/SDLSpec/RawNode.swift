/// An XML element as read from the file, before any meaning is given to it.
public struct RawNode: Sendable, Hashable {
    public struct Attribute: Sendable, Hashable {
        public var name: String
        public var value: String
    }

    public var name: String
    public var attributes: [Attribute]
    public var children: [RawNode]
    /// Text directly inside the element, with child elements' text left out.
    public var text: String
    public var line: Int

    public init(name: String, attributes: [Attribute] = [], children: [RawNode] = [], text: String = "", line: Int) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
        self.line = line
    }

    public subscript(attribute name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }
}

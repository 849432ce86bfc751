import SDLRPC

/// Fits the app's four lines to the template: as many main fields as the window capability
/// lists, the rest joined with " - " as the guide shows, each cut to its field's width.
enum TextFitting {
    static let separator = " - "

    /// The main fields (mainField1...4) the template has; 4 when the capability is unknown.
    static func lineCount(_ window: WindowCapability?) -> Int {
        guard let fields = window?.textFields else { return 4 }
        return [TextFieldName.mainField1, .mainField2, .mainField3, .mainField4].filter { name in fields.contains { $0.name == name } }.count
    }

    /// Whether the template shows a text field (unknown capability: yes).
    static func has(_ name: TextFieldName, _ window: WindowCapability?) -> Bool {
        guard let fields = window?.textFields else { return true }
        return fields.contains { $0.name == name }
    }

    /// Whether the template shows an image field (unknown capability: yes).
    static func has(_ name: ImageFieldName, _ window: WindowCapability?) -> Bool {
        guard let fields = window?.imageFields else { return true }
        return fields.contains { $0.name == name }
    }

    /// The field's width in characters, when the capability gives one.
    static func width(_ name: TextFieldName, _ window: WindowCapability?) -> Int? {
        guard let width = window?.textFields?.first(where: { $0.name == name })?.width, width > 0 else { return nil }
        return width
    }

    /// The text of each main field to send ("" clears a line) and the metadata tags, for a
    /// template with `lines` main fields. Lines beyond the template's are joined into the last
    /// ones: 1 line takes all; 2 lines take 1–2 and 3–4 when the third or fourth is set; 3
    /// lines take 1, 2 and 3–4.
    static func fit(lines: [String?], types: [MetadataType?], count: Int) -> (fields: [String], tags: [[MetadataType]]) {
        let groups: [[Int]]
        let present = { (index: Int) in !(lines[index] ?? "").isEmpty }
        switch count {
        case ...0: groups = []
        case 1: groups = [[0, 1, 2, 3]]
        case 2: groups = present(2) || present(3) ? [[0, 1], [2, 3]] : [[0], [1]]
        case 3: groups = [[0], [1], [2, 3]]
        default: groups = [[0], [1], [2], [3]]
        }
        let fields = groups.map { group in group.compactMap { lines[$0] }.filter { !$0.isEmpty }.joined(separator: separator) }
        let tags = groups.map { group in group.filter(present).compactMap { types[$0] } }
        return (fields, tags)
    }

    /// `text` cut to `width` characters.
    static func cut(_ text: String, to width: Int?) -> String {
        guard let width, text.count > width else { return text }
        return String(text.prefix(width))
    }

    /// A popup's lines in the fields the head unit lists among `names` (all of them when it
    /// lists none: its capability does not describe its popups): lines beyond the last field are
    /// joined into it, each cut to its width. One entry per name, nil where nothing goes.
    static func fit(_ lines: [String], into names: [TextFieldName], _ window: WindowCapability?) -> [String?] {
        let listed = names.filter { has($0, window) }
        let available = listed.isEmpty ? names : listed
        var result = [String?](repeating: nil, count: names.count)
        for (index, name) in available.enumerated() where index < lines.count {
            let text = index == available.count - 1 ? lines[index...].joined(separator: separator) : lines[index]
            result[names.firstIndex(of: name)!] = cut(text, to: width(name, window))
        }
        return result
    }
}

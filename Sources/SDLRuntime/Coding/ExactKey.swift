/// A key compared by its UTF-8 bytes, for duplicate-key checks. `String`'s `==` treats
/// canonically equivalent spellings as one ("é" as U+00E9 and as "e" + U+0301), but on the wire
/// they are two keys, to pymongo and SDL Core alike. Hashable, so that checking an object with
/// many keys stays linear.
struct ExactKey: Hashable {
    /// Which object the key is in, so that one set can hold the keys of every open object.
    var scope: Int
    var text: String

    static func == (lhs: ExactKey, rhs: ExactKey) -> Bool {
        lhs.scope == rhs.scope && lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(scope)
        let utf8 = text.utf8
        if utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            for byte in utf8 { hasher.combine(byte) }
        }
    }
}

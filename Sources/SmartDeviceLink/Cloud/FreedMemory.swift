#if canImport(Glibc)
import Glibc
#endif

/// Hands memory the allocator keeps after it was freed back to the system. glibc's malloc gives
/// back only the top of its heaps by itself: after thousands of sessions set up at once (their
/// registrations decoded, their uploads framed), the freed space between what the sessions keep
/// stays resident. `malloc_trim` returns its whole free pages; nothing else changes.
enum FreedMemory {
    /// Returns the freed pages to the system; false where the allocator cannot (not glibc).
    @discardableResult
    static func release() -> Bool {
        #if canImport(Glibc)
        // Looked up rather than declared: musl and other C libraries have no `malloc_trim`.
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "malloc_trim") else { return false }
        let trim = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        _ = trim(0)
        return true
        #else
        return false
        #endif
    }
}

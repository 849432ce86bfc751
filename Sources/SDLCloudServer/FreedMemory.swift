#if canImport(Glibc)
    import Glibc
#endif

/// glibc's malloc settings for memory that was freed, looked up when called: musl and other C
/// libraries have neither function, so there they do nothing. glibc's malloc gives back only
/// the top of its heaps by itself: after thousands of sessions set up at once (their
/// registrations decoded, their uploads framed), the freed space between what the sessions
/// keep stays resident.
package enum FreedMemory {
    /// Returns the allocator's whole free pages to the system (`malloc_trim`); false where the
    /// allocator cannot.
    @discardableResult
    package static func release() -> Bool {
        guard let trim = glibc("malloc_trim", as: (@convention(c) (Int) -> Int32).self) else { return false }
        _ = trim(0)
        return true
    }

    /// Keeps up to `bytes` free at the top of the heap instead of giving it back once 128 KB
    /// are free, and grows the heap `pad` bytes beyond each need (`mallopt`'s trim threshold and
    /// top pad): for a process whose buffers of every size come and go by the thousand, which
    /// would otherwise give memory back and fault it in again moments later. False where the
    /// allocator has no such settings.
    @discardableResult
    package static func keep(upTo bytes: Int32, pad: Int32) -> Bool {
        guard let mallopt = glibc("mallopt", as: (@convention(c) (Int32, Int32) -> Int32).self) else { return false }
        let trimThreshold: Int32 = -1
        let topPad: Int32 = -2
        _ = mallopt(trimThreshold, bytes)
        _ = mallopt(topPad, pad)
        return true
    }

    private static func glibc<Function>(_ name: String, as type: Function.Type) -> Function? {
        #if canImport(Glibc)
            guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, name) else { return nil }
            return unsafeBitCast(symbol, to: type)
        #else
            return nil
        #endif
    }
}

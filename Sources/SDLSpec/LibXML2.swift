import CLibXML2

/// libxml2 wants `xmlInitParser()` once, before threads use it: otherwise each thread's first
/// parser sets up libxml2's globals lazily, and two threads doing so at once can deadlock (seen:
/// two schema validations run in parallel by the tests, both waiting forever in
/// `xmlRMutexLock` under `xmlDictCreate`). The schema module's built-in types are set up
/// lazily too, without a lock in libxml2 2.9, and `xmlInitParser` leaves them: done here as
/// well. Every entry point that calls libxml2 calls this first.
enum LibXML2 {
    private static let initialized: Void = {
        xmlInitParser()
        xmlSchemaInitTypes()
    }()

    /// Initialises libxml2 the first time; afterwards does nothing. Safe from any thread.
    static func initialize() { initialized }
}

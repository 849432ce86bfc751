import SmartDeviceLink
import Testing

/// The app-facing API throws `SDLError`; these check its code and its detailed cause.

/// Expects `body` to throw an `SDLError` whose cause is `cause` and whose code is the one that
/// cause maps to; returns the error.
@discardableResult
func expectSDLError<E: Error & Equatable, T>(
    _ cause: E, code: SDLError.Code? = nil, sourceLocation: SourceLocation = #_sourceLocation, performing body: () async throws -> T
) async -> SDLError? {
    let error = await #expect(throws: SDLError.self, sourceLocation: sourceLocation) { _ = try await body() }
    #expect(error?.underlying as? E == cause, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.code == (code ?? SDLError(cause).code), sourceLocation: sourceLocation)
    return error
}

/// Expects `body` to throw an `SDLError` caused by an `E`; returns that cause.
@discardableResult
func expectSDLError<E: Error, T>(
    _ type: E.Type, sourceLocation: SourceLocation = #_sourceLocation, performing body: () async throws -> T
) async -> E? {
    let error = await #expect(throws: SDLError.self, sourceLocation: sourceLocation) { _ = try await body() }
    let cause = error?.underlying as? E
    #expect(cause != nil, "\(String(describing: error)) is not caused by \(E.self)", sourceLocation: sourceLocation)
    return cause
}

/// Runs `body`; what it throws, an `SDLError`, is thrown again as its detailed cause `E`, so a
/// test can `catch` the cause's cases. A failure of another kind is recorded, and ends as nil.
@discardableResult
func detailed<E: Error, T>(
    _ type: E.Type, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async throws(E) -> T? {
    do {
        return try await body()
    } catch {
        guard let sdlError = error as? SDLError else {
            Issue.record("\(error) is not an SDLError", sourceLocation: sourceLocation)
            return nil
        }
        guard let cause = sdlError.underlying as? E else {
            Issue.record("\(sdlError) is not caused by \(E.self)", sourceLocation: sourceLocation)
            return nil
        }
        #expect(sdlError.code == SDLError(cause).code, sourceLocation: sourceLocation)
        throw cause
    }
}

/// What the sub-managers' errors share: a request the manager's checks stopped before sending,
/// or an exchange that failed.
protocol SDLManagerOperationError: Error {
    static func notSent(_ error: SDLManagerError) -> Self
    static func failed(_ error: SDLRPCError) -> Self
}

extension SDLManagerOperationError {
    /// Runs `body` (a manager send) and sorts its error into the two cases.
    static func sending<T>(
        _ function: String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async throws(Self) -> T {
        do {
            return try await body()
        } catch {
            // The manager's public API throws `SDLError`; its cause is the detailed error.
            switch SDLError.cause(of: error) {
            case let error as SDLManagerError: throw .notSent(error)
            case let error as SDLRPCError: throw .failed(error)
            // Nothing else comes out of a manager send but cancellation.
            default: throw .failed(.cancelled(function: function))
            }
        }
    }
}

extension SDLVehicleDataError: SDLManagerOperationError {}
extension SDLButtonError: SDLManagerOperationError {}
extension SDLAppServiceError: SDLManagerOperationError {}

import SDLRPC
import SDLRuntime

/// One finished request of a batch.
public struct SDLBatchProgress: Sendable {
    /// The request's position in the batch.
    public var index: Int
    /// Requests finished so far, this one included.
    public var completed: Int
    /// Requests in the whole batch.
    public var total: Int
    /// This request's typed response, or the error it failed with (refused, not sent, timed out).
    public var result: Result<any SDLResponse, SDLError>

    /// `completed / total`.
    public var fraction: Double { total == 0 ? 1 : Double(completed) / Double(total) }
}

/// Why a request of a sequential batch was not sent: the cause of its `SDLError` (code
/// `cancelled`).
package struct SDLBatchCancelled: Error, Hashable, Sendable {
    static let error = SDLError(.cancelled, "not sent: the batch was cancelled before this request", underlying: SDLBatchCancelled())
}

extension SDLManager {
    /// Sends every request at once; `progress` hears each as it finishes (any order). Returns the
    /// results in the requests' order. A drop fails the pending ones at once.
    public func sendConcurrently(
        _ requests: [any SDLRequest], progress: (@Sendable (SDLBatchProgress) -> Void)? = nil
    ) async -> [Result<any SDLResponse, SDLError>] {
        await withTaskGroup(of: (Int, Result<any SDLResponse, SDLError>).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { (index, await self.result(of: request)) }
            }
            var results = [Result<any SDLResponse, SDLError>](repeating: .failure(SDLBatchCancelled.error), count: requests.count)
            var completed = 0
            for await (index, result) in group {
                results[index] = result
                completed += 1
                progress?(SDLBatchProgress(index: index, completed: completed, total: requests.count, result: result))
            }
            return results
        }
    }

    /// Sends the requests one after the other, each after the previous response; `progress`
    /// hears each and returns false to cancel the rest (they fail unsent, with code `cancelled` and cause `SDLBatchCancelled`).
    public func sendSequentially(
        _ requests: [any SDLRequest], progress: (@Sendable (SDLBatchProgress) -> Bool)? = nil
    ) async -> [Result<any SDLResponse, SDLError>] {
        var results: [Result<any SDLResponse, SDLError>] = []
        for (index, request) in requests.enumerated() {
            let result = await result(of: request)
            results.append(result)
            let goOn = progress?(SDLBatchProgress(index: index, completed: index + 1, total: requests.count, result: result)) ?? true
            if !goOn || Task.isCancelled { break }
        }
        while results.count < requests.count { results.append(.failure(SDLBatchCancelled.error)) }
        return results
    }

    private func result(of request: any SDLRequest) async -> Result<any SDLResponse, SDLError> {
        do {
            return .success(try await sendErased(request))
        } catch {
            return .failure(SDLError(error))
        }
    }

    private func sendErased<R: SDLRequest>(_ request: R) async throws -> any SDLResponse {
        try await send(request)
    }
}

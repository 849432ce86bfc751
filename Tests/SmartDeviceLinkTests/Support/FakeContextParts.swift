import SDLProtocol
import SDLRPC
import SDLRuntime
import Synchronization

@testable import SmartDeviceLink

/// What the fake sub-manager contexts share: notifications a test pushes to the readers of
/// their function ID, and a scope for the sub-manager's child tasks that the test runs.
final class FakeContextParts: Sendable {
    let tasks = TaskScope()
    private let readers = Mutex<[(ids: Set<UInt32>, sink: AsyncStream<SDLIncomingRPC>.Continuation)]>([])

    /// Delivers a notification to the readers of its function ID.
    func deliver<N: SDLNotification>(_ notification: N) throws {
        let rpc = SDLIncomingRPC(payload: SDLRPCPayload(rpcType: .notification, functionID: N.wireFunctionID ?? 0, json: try SDLJSON.encode(notification)))
        for reader in readers.withLock({ $0 }) where reader.ids.contains(rpc.payload.functionID) { reader.sink.yield(rpc) }
    }

    /// A reader of `functionIDs`' notifications.
    func rawNotifications(functionIDs: Set<UInt32>) -> AsyncStream<SDLIncomingRPC> {
        let (stream, sink) = AsyncStream<SDLIncomingRPC>.makeStream()
        readers.withLock { $0.append((functionIDs, sink)) }
        return stream
    }

    /// Runs `body` while the child tasks run; they are cancelled afterwards.
    func running(_ body: () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.tasks.run() }
            defer { group.cancelAll() }
            try await body()
        }
    }
}

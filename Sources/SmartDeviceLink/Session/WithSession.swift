import Logging
import SDLTransport

/// Runs an SDL session over `transport` for the duration of `body`: starts the client's run loop,
/// negotiates the protocol (StartService), runs `body` with the client, then ends the session
/// (EndService) and waits until the run loop has stopped. The connection lives exactly as long
/// as the scope; requests still pending when `body` returns fail with `connectionClosed`.
///
/// ```swift
/// let transport = try await SDLTCPTransport.connect(host: "127.0.0.1", port: 12345)
/// try await withSDLSession(transport: transport) { client in
///     let response = try await client.send(registration)
///     print(response.resultCode)
/// }
/// ```
///
/// If the connection ends while `body` runs, its requests throw `SDLRPCError.connectionClosed`
/// with the reason, and that error leaves the scope unless `body` handles it.
public func withSDLSession<Result>(
    transport: any SDLTransport,
    configuration: SDLProtocolSession.Configuration = SDLProtocolSession.Configuration(),
    requestTimeout: Duration = .seconds(10),
    _ body: (SDLRPCClient) async throws -> Result
) async throws -> Result {
    let session = SDLProtocolSession(transport: transport, configuration: configuration)
    let client = SDLRPCClient(session: session, requestTimeout: requestTimeout)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await client.run() }
        let result: Result
        do {
            try await session.start()
            result = try await body(client)
        } catch {
            await client.close()
            group.cancelAll()
            // The run loop's own error (why the connection ended) explains less than the body's.
            while (try? await group.next()) != nil {}
            throw error
        }
        await client.close()
        do {
            try await group.waitForAll()
        } catch {
            configuration.logger.debug("the session ended abnormally after the scope's work was done", metadata: ["error": "\(error)"])
        }
        return result
    }
}

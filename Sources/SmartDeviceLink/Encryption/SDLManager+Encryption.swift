import Logging
import SDLConcurrency
import SDLProtocol
import Synchronization

extension SDLManager {
    /// The encryption of `service` now (`.notStarted` before any was asked).
    public func encryptionState(of service: SDLServiceType) -> SDLEncryptionState {
        shared.withLock { $0.encryption[service] } ?? .notStarted
    }

    /// Every change of a service's encryption, from now on (the guide's service-encryption
    /// delegate). Buffers the 16 latest; a slow reader loses the oldest.
    public func encryptionStates() -> AsyncStream<SDLServiceEncryption> {
        encryptionFanOut.subscribe()
    }

    /// Protects the RPC service now (the guide's `startRPCEncryption`): the TLS handshake with
    /// the head unit, then RPCs sent `protected` (or that the permissions mark `requireEncryption`)
    /// go encrypted. Throws `encryptionFailed` when the head unit refuses or falls back to plain
    /// text, `encryptionNeeded` when no security manager serves this head unit.
    public func startRPCEncryption() async throws {
        guard let client else { throw SDLError(SDLManagerError.notReady(state)) }
        do {
            try await protectRPCService(client: client)
        } catch {
            throw SDLError(error)
        }
    }

    /// Picks the security manager for the head unit's make and gives its provider to the session.
    func chooseSecurity(make: String?, session: SDLProtocolSession) async {
        do {
            guard let provider = try configuration.encryption.provider(for: make) else { return }
            await session.setSecurity(provider)
            setEncryption(.notStarted, of: .rpc)
        } catch {
            logger.warning("the security manager could not make a provider", metadata: ["make": "\(make ?? "?")", "error": "\(error)"])
            setEncryption(.failed(reason: "the security manager failed: \(error)"), of: .rpc)
        }
    }

    /// The RPC service protected, once; an RPC that needs it waits for the handshake.
    func ensureRPCProtection(for rpc: String, client: SDLRPCClient) async throws {
        if await client.session.protectedServices.contains(.rpc) { return }
        guard await client.session.hasSecurity else {
            throw SDLManagerError.encryptionNeeded(rpc: rpc, reason: "no security manager serves this head unit")
        }
        do {
            try await protectRPCService(client: client)
        } catch {
            throw SDLManagerError.encryptionNeeded(rpc: rpc, reason: "\(SDLError(error).message)")
        }
    }

    func protectRPCService(client: SDLRPCClient) async throws {
        let session = client.session
        if await session.protectedServices.contains(.rpc) { return }
        guard await session.hasSecurity else {
            setEncryption(.failed(reason: "no security manager serves this head unit"), of: .rpc)
            throw SDLError(.encryptionNeeded, "no security manager serves this head unit")
        }
        setEncryption(.handshaking, of: .rpc)
        let outcome: SDLServiceProtection
        do {
            outcome = try await session.startProtectedService(.rpc)
        } catch {
            setEncryption(.failed(reason: SDLError(error).message), of: .rpc)
            throw error
        }
        guard outcome.isEncrypted else {
            let reason = outcome.securityFailure.map(\.description) ?? "the head unit acknowledged without encryption"
            setEncryption(.plainText(reason: reason), of: .rpc)
            throw SDLError(.encryptionFailed, "the RPC service stayed in plain text: \(reason)")
        }
        setEncryption(.encrypted, of: .rpc)
    }

    func setEncryption(_ state: SDLEncryptionState, of service: SDLServiceType) {
        shared.withLock { shared in
            guard shared.encryption[service] != state else { return }
            shared.encryption[service] = state
            // In the lock, so readers see the changes in the order they were made.
            encryptionFanOut.yield(SDLServiceEncryption(service: service, state: state))
        }
    }
}

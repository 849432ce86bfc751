import SDLProtocol
import SDLTLS

/// The engine alone (`SecurityBenchmarks --micro`): a TLS server and client endpoint in
/// memory, and the four record operations of one protected round trip (seal, open, seal,
/// open) of a 300-byte RPC, from one task.
func microTLS() async throws {
    let authority = try SDLCertificateAuthority.generate()
    let server = try SDLTLSSecurity(role: .server(try authority.issue(appID: "micro")))
    let client = try SDLTLSSecurity(role: .client(SDLCertificateCheck(authority: authority.certificate, expectedSerialNumber: "micro")))
    var toServer = try await client.startHandshake()
    while true {
        let clientDone = await client.isHandshakeComplete
        let serverDone = await server.isHandshakeComplete
        if clientDone && serverDone { break }
        let answer = try await server.continueHandshake(with: toServer)
        toServer = try await client.continueHandshake(with: answer.outgoing).outgoing
    }
    let payload = [UInt8](repeating: 0x41, count: 300)
    let clock = ContinuousClock()
    for round in 1...3 {
        let start = clock.now
        for _ in 0..<10_000 {
            let opened = try await server.decrypt(try await client.encrypt(payload))
            _ = try await client.decrypt(try await server.encrypt(opened))
        }
        print("round \(round): four record operations of a 300-byte round trip: \((clock.now - start) / 10_000)")
    }
}

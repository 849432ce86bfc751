import SDLProtocol
import Testing

/// Security queries, byte for byte as SDL Core's security manager writes and reads them.
@Suite struct SecurityQueryTests {
    @Test func handshakeDataIsHeaderThenTheTLSBytes() throws {
        let hello: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x02, 0x01, 0x00]
        let query = SDLSecurityQuery.handshake(hello, sequenceNumber: 1)
        #expect(query.encoded == [0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00] + hello)
        let decoded = try SDLSecurityQuery(decoding: query.encoded)
        #expect(decoded == query)
        #expect(decoded.type == .request && decoded.id == .sendHandshakeData && decoded.sequenceNumber == 1)
        let answer = SDLSecurityQuery.handshake([0x16], type: .response, sequenceNumber: 0x0102_0304)
        #expect(Array(answer.encoded.prefix(8)) == [0x10, 0x00, 0x00, 0x01, 0x01, 0x02, 0x03, 0x04])
    }

    @Test func anInternalErrorCarriesJSONAndTheCode() throws {
        let error = SDLSecurityQuery.internalError(.invalidCertificate, text: "App ID does not match certificate")
        let json = Array(#"{"id":10,"text":"App ID does not match certificate"}"#.utf8)
        #expect(error.encoded == [0x20, 0x00, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, UInt8(json.count)] + json + [0x0A])
        let decoded = try SDLSecurityQuery(decoding: error.encoded)
        #expect(decoded.errorCode == .invalidCertificate)
        #expect(decoded.errorCode?.description == "invalid certificate")
        // Quotes and control characters in the text stay valid JSON.
        let quoted = SDLSecurityQuery.internalError(.handshakeFailed, text: "a \"b\"\n")
        #expect(String(decoding: quoted.json, as: UTF8.self) == #"{"id":9,"text":"a \"b\"\u000a"}"#)
        #expect(SDLSecurityQuery.handshake([1], sequenceNumber: 1).errorCode == nil)
    }

    @Test func badHeadersAreErrorsNamingTheField() {
        #expect(throws: SDLSecurityQueryError.tooShort(11)) { try SDLSecurityQuery(decoding: [UInt8](repeating: 0, count: 11)) }
        #expect(throws: SDLSecurityQueryError.unknownQueryType(0x30)) {
            try SDLSecurityQuery(decoding: [0x30, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0])
        }
        // A JSON size of 4 GiB over 2 bytes: refused, nothing allocated for it.
        let lying: [UInt8] = [0x00, 0, 0, 1, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2]
        #expect(throws: SDLSecurityQueryError.jsonSizeBeyondData(declared: 0xFFFF_FFFF, available: 2)) { try SDLSecurityQuery(decoding: lying) }
        #expect(SDLSecurityQueryError.jsonSizeBeyondData(declared: 9, available: 2).description.contains("header.jsonSize"))
        // Unknown query IDs decode (the receiver answers INVALID_QUERY_ID), keeping 24 bits.
        #expect((try? SDLSecurityQuery(decoding: [0x00, 0xAB, 0xCD, 0xEF, 0, 0, 0, 0, 0, 0, 0, 0]))?.id.rawValue == 0xAB_CDEF)
    }

    @Test func everyTruncationOfAQueryIsHandled() {
        let full = SDLSecurityQuery.internalError(.expiredCertificate, text: "expired", sequenceNumber: 7).encoded
        for length in 0..<full.count {
            let prefix = Array(full.prefix(length))
            if let query = try? SDLSecurityQuery(decoding: prefix) {
                #expect(query.encoded == prefix)
            }
        }
    }
}

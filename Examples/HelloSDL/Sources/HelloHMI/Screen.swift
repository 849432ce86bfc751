import SDLRuntime

/// What an HMI written with the generated types does: read Core's `UI.Show` and answer it.
public enum Screen {
    /// The lines a `UI.Show` request asks for, and the response to send back.
    public static func answer(_ bytes: [UInt8]) throws -> (lines: [String], reply: [UInt8]) {
        let request = try SDLJSONRPC.decodeRequest(UI.Show.self, from: bytes).value
        let lines = request.params.showStrings.map(\.fieldText)
        let reply = try SDLJSONRPC.encode(HMIResponse(id: request.id, code: .success, result: UI.ShowResponse()))
        return (lines, reply)
    }
}

/// What code generated from SDL Core's HMI API (HMI_API.xml) conforms to. The HMI API speaks
/// JSON-RPC 2.0: a message names its function by `method` (`UI.Show`) instead of a FunctionID.

/// A `<function>` of the HMI API: the parameters of one JSON-RPC message.
public protocol SDLHMIMessage: SDLCodable {
    /// The JSON-RPC method, `Interface.Function` (`UI.Show`); requests, responses and
    /// notifications of a function share it.
    static var method: String { get }
    /// Which JSON-RPC message carries these parameters: a request's `params`, a response's
    /// `result` or a notification's `params`.
    static var messageType: SDLMessageType { get }
}

/// A request; `Response` is what answers it, so a reply decodes without naming its type again.
public protocol SDLHMIRequest: SDLHMIMessage {
    associatedtype Response: SDLHMIResponse
}

/// The parameters of a response's `result`, besides its `code` and `method`.
public protocol SDLHMIResponse: SDLHMIMessage {}

/// A message that expects no answer (no JSON-RPC `id`).
public protocol SDLHMINotification: SDLHMIMessage {}

/// The HMI API's result codes (`Common.Result`); JSON-RPC carries them by number.
public protocol SDLHMIResultCode: SDLEnumeration {
    /// The result for a number; one the spec does not define is kept (`isRecognized` is false).
    init(code: Int)
    /// The number on the wire (`SUCCESS` is 0).
    var code: Int { get }
}

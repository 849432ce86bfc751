/// What generated code conforms to.

/// A spec `<enum>`. Enums are open: a value a newer head unit sends is kept as
/// `init(rawValue:)`'s unrecognized case, never a decoding failure.
public protocol SDLEnumeration: RawRepresentable, Hashable, Sendable, CaseIterable
where RawValue == String, AllCases == [Self] {
    /// Never fails: unknown strings are kept.
    init(rawValue: String)
    /// False for a value this spec version does not define.
    var isRecognized: Bool { get }
    static var enumInfo: SDLEnumInfo { get }
}

/// A spec `<struct>`, or the parameters of a `<function>`.
public protocol SDLStructure: Hashable, Sendable {
    static var structInfo: SDLStructInfo { get }
}

/// `messagetype` of a function.
public enum SDLMessageType: String, Hashable, Sendable, CaseIterable {
    case request
    case response
    case notification
}

/// A `<function>`: one message of an RPC.
public protocol SDLMessage: SDLCodable {
    /// The function name on the wire (`Show`).
    static var functionName: String { get }
    /// The numeric FunctionID the binary header carries.
    static var functionIDValue: Int { get }
    static var messageType: SDLMessageType { get }
}

/// A request; `Response` is the message the head unit answers with.
public protocol SDLRequest: SDLMessage {
    associatedtype Response: SDLResponse
}

public protocol SDLResponse: SDLMessage {}

public protocol SDLNotification: SDLMessage {}

/// Each generated file declares a type conforming to this protocol, so code generated for
/// another runtime version fails to compile instead of misbehaving.
public protocol SDLGeneratedCodeVersion1 {}

/// The response type of a request the spec defines no response for.
public struct SDLNoResponse: SDLResponse {
    public static let structInfo = SDLStructInfo(name: "", parameters: [])
    public static let functionName = ""
    public static let functionIDValue = -1
    public static let messageType = SDLMessageType.response

    public init() {}

    public init<R: SDLReader>(from reader: inout R) throws(SDLReaderFailure) {
        while let key = try reader.nextKey() { try reader.skipUnknownValue(forKey: key) }
    }

    public func encode<W: SDLWriter>(to writer: inout W) {}

    public func validate(into validator: inout SDLValidator) {}
}

import SDLRuntime

// Enums.swift, Structs.swift, Requests.swift, Responses.swift, Notifications.swift and
// MobileAPI.swift are generated from MOBILE_API.xml (with the options in sdlgen.json) while this
// target builds, so hand-written code in the module uses them like any other type.

/// A little hand-written API over the generated types.
public enum Greeter {
    /// The request an app sends to have `firstName` greeted.
    public static func request(for firstName: String, lastName: String? = nil, mood: Mood = .cheerful) -> Greet {
        Greet(name: PersonName(firstName: firstName, lastName: lastName), mood: mood)
    }

    /// The JSON parameters of a request, checked against the spec's bounds first.
    public static func json(for request: Greet) throws(SDLValidationError) -> [UInt8] {
        try SDLJSON.encode(request)
    }

    /// Reads the head unit's notification from its JSON parameters.
    public static func greeted(fromJSON bytes: [UInt8]) throws(SDLDecodingError) -> OnGreeted {
        try SDLJSON.decode(OnGreeted.self, from: bytes).value
    }
}

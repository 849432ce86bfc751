import Hummingbird
import SDLHeadUnit
import SDLRPC
import SDLRuntime

// The control API's request and answer bodies. A request body that does not fit gets its
// `expected` text as a 400.

/// `GET /apps`: one registered app.
struct AppListing: Encodable {
    let appID: String
    let name: String
    let hmiLevel: String
    let systemContext: String
    let session: Int
    let appTypes: [String]
    let isMedia: Bool
    /// The app's icon URL, when it set one.
    let icon: String?
}

/// `GET /display`: the main display as the head unit announces it.
struct DisplayAnswer: Encodable, ResponseEncodable {
    let name: String
    let width: Int
    let height: Int
    let driverDistraction: Bool
}

/// `POST /security/certificates`.
struct CertificateRequest: ExpectedBody {
    static let expected = #"expected {"appID": "..."}"#
    let appID: String
}

struct IssuedCertificate: Encodable, ResponseEncodable {
    let appID: String
    let certificate: String
    let privateKey: String
}

/// `POST /apps/{appID}/faults/putfile`.
struct FileFaultRequest: ExpectedBody {
    static let expected = #"expected {"fault": "disconnect" | "noAnswer" | "corrupt" | "<RESULT_CODE>", "chunk": 1}"#
    let fault: String
    let chunk: Int?
}

/// `POST /apps/{appID}/policy-update`.
struct PolicyUpdateRequest: ExpectedBody {
    static let expected = #"expected {"url": "http://..."}"#
    let url: String
}

/// `POST /apps/{appID}/system-request`.
struct SystemRequestRequest: ExpectedBody {
    static let expected = #"expected {"requestType": "HTTP", "url": "http://...", "body": "..."}"#
    let requestType: String
    let url: String?
    let timeout: Int?
    let body: String?
}

/// `GET /apps/{appID}/streams`: one stream's statistics.
struct StreamAnswer: Encodable {
    let frames: Int
    let bytes: Int
    let keyframes: Int
    let dropped: Int
    let fps: Double
    let kbps: Double

    init(_ statistics: SDLStreamStatistics) {
        frames = statistics.frames
        bytes = statistics.bytes
        keyframes = statistics.keyframes
        dropped = statistics.dropped
        fps = statistics.framesPerSecond
        kbps = statistics.kilobitsPerSecond
    }
}

struct StreamsAnswer: Encodable, ResponseEncodable {
    var video: StreamAnswer?
    var audio: StreamAnswer?
}

/// `GET /apps/{appID}/files`: one file.
struct FileListing: Encodable {
    let name: String
    let url: String
}

/// A button press: `{"mode": "LONG"}`, SHORT when absent.
struct PressRequest: ExpectedBody {
    static let expected = SDLHeadUnitControlError.invalidAnswer(#"mode is "SHORT" or "LONG""#).description
    let mode: String?

    func pressMode() throws -> ButtonPressMode {
        guard let mode else { return .short }
        guard ["SHORT", "LONG"].contains(mode) else { throw ControlError(.badRequest, Self.expected) }
        return ButtonPressMode(rawValue: mode)
    }
}

/// `POST /apps/{appID}/interaction`: the driver's answer to what is on top.
struct InteractionRequest: ExpectedBody {
    static let expected = SDLHeadUnitControlError.invalidAnswer(
        #"expected {"choiceID": N}, {"sliderPosition": N}, {"text": "..."}, {"cancel": true} or {"dismiss": true}"#
    ).description
    let choiceID: Int?
    let triggerSource: String?
    let sliderPosition: Int?
    let text: String?
    let cancel: Bool?
    let dismiss: Bool?

    func answer() throws -> SDLUserAnswer {
        if let choiceID { return triggerSource == "VR" ? .voiceChoice(choiceID) : .choice(choiceID) }
        if let sliderPosition { return .sliderPosition(sliderPosition) }
        if let text { return .text(text) }
        if cancel == true { return .cancel }
        if dismiss == true { return .dismiss }
        throw ControlError(.badRequest, Self.expected)
    }
}

/// `POST /apps/{appID}/keyboard`: key presses on the keyboard on top.
struct KeyboardRequest: ExpectedBody {
    static let expected = #"expected {"type": "text to type"}"#
    let type: String
}

/// `POST /apps/{appID}/keyboard/mask`.
struct KeyboardMaskRequest: ExpectedBody {
    static let expected = #"expected {"masked": true}"#
    let masked: Bool
}

/// `POST /apps/{appID}/touch`: one point (`id`, `x`, `y`) or `points`.
struct TouchRequest: ExpectedBody {
    static let expected = #"expected {"type": "BEGIN|MOVE|END|CANCEL", "x": N, "y": N}"#

    struct Point: Decodable {
        let id: Int?
        let x: Int?
        let y: Int?

        var touchPoint: SDLHeadUnitEmulator.TouchPoint? {
            guard let x, let y else { return nil }
            return id.map { .init(id: $0, x: x, y: y) } ?? .init(x: x, y: y)
        }
    }

    let type: String
    let id: Int?
    let x: Int?
    let y: Int?
    let points: [Point]?

    var touchPoints: [SDLHeadUnitEmulator.TouchPoint] {
        if let points { return points.compactMap(\.touchPoint) }
        return Point(id: id, x: x, y: y).touchPoint.map { [$0] } ?? []
    }
}

/// `POST /apps/{appID}/gestures`: tap, doubleTap, pan (to `toX`, `toY`) or pinch (finger
/// distances `from`, `to`) around (`x`, `y`).
struct GestureRequest: ExpectedBody {
    static let expected = #"expected {"gesture": "tap|doubleTap|pan|pinch", "x": N, "y": N, ...}"#
    let gesture: String
    let x: Int
    let y: Int
    let toX: Int?
    let toY: Int?
    let from: Int?
    let to: Int?
}

/// Whether a touch reached the app (its policy may hold it back).
struct DeliveredAnswer: Encodable, ResponseEncodable {
    let delivered: Bool
}

/// `PUT /driver-distraction`.
struct DriverDistractionRequest: ExpectedBody {
    static let expected = #"expected {"state": "DD_ON"} or {"state": "DD_OFF"}"#
    let state: String
}

/// `PUT /security/system-time`.
struct SystemTimeRequest: ExpectedBody {
    static let expected = #"expected {"ready": true} or {"ready": false}"#
    let ready: Bool
}

/// `PUT /rc/consent`: the driver's answer to the next consent requests.
struct ConsentRequest: ExpectedBody {
    static let expected = #"expected {"allowed": true | false}"#
    let allowed: Bool
}

/// `GET` and `PUT /language`.
struct LanguageBody: ExpectedBody, Encodable, ResponseEncodable {
    static let expected = #"expected {"language": "EN-US"}"#
    let language: String
}

/// A body that is any JSON: vehicle data, waypoints, a ModuleData, a policy table.
struct JSONBody: JSONDocumentBody {
    let json: SDLJSONValue
}

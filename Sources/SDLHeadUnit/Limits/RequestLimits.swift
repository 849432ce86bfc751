import SDLRPC

/// SDL Core's request limits, as observed on SDL Core 8.2: in NONE, PutFile, ListFiles and
/// SetAppIcon are limited to 5 each (the 6th is REJECTED, "Too many requests from the app with
/// HMILevel HMI_NONE"), so an app cannot flood the head unit before the driver opens it;
/// GetVehicleData to 5 per second.
struct RequestLimits: Sendable {
    static let limitedInNone: Set<String> = ["PutFile", "ListFiles", "SetAppIcon"]
    static let perNoneLevel = 5
    static let vehicleDataPerSecond = 5

    /// Requests per RPC while the app has been in NONE.
    private var noneCounts: [String: Int] = [:]
    /// When recent GetVehicleData requests came (clock offsets).
    private var vehicleDataTimes: [Duration] = []

    /// Nil when the request may go on, else SDL Core's refusal text.
    mutating func check(_ function: String, level: HMILevel, now: Duration) -> String? {
        if level == .none, Self.limitedInNone.contains(function) {
            noneCounts[function, default: 0] += 1
            if noneCounts[function]! > Self.perNoneLevel { return "Too many requests from the app with HMILevel HMI_NONE" }
        }
        if function == "GetVehicleData" {
            vehicleDataTimes.removeAll { now - $0 >= .seconds(1) }
            guard vehicleDataTimes.count < Self.vehicleDataPerSecond else { return "Too many requests per second" }
            vehicleDataTimes.append(now)
        }
        return nil
    }

    /// Leaving NONE resets its counts.
    mutating func levelChanged(to level: HMILevel) {
        if level != .none { noneCounts.removeAll() }
    }
}

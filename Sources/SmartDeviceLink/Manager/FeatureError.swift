import SDLRPC
import SDLRuntime

/// Why a navigation, phone, remote-control or app-closing request did not succeed. Everything
/// but `refused` and `failed` is decided before anything is sent.
package enum SDLFeatureError: Error, Sendable, CustomStringConvertible {
    /// The manager's checks stopped it before sending (not Ready, HMI level, permissions, RPC
    /// version...).
    case notSent(SDLManagerError)
    /// The head unit says it cannot do this (its capabilities); the text explains.
    case unsupported(String)
    /// The feature is for apps of this type (`appTypes` in the configuration).
    case wrongAppType(String, needs: AppHMIType)
    /// The request breaks the guide's rules; the text explains.
    case invalid(String)
    /// The driver refused the app control of this module (GetInteriorVehicleDataConsent).
    case consentDenied(ModuleType, moduleID: String?)
    /// The head unit refused the request.
    case refused(String, SDLResult, info: String?)
    /// The exchange failed: connection lost, timeout, unreadable answer.
    case failed(SDLRPCError)
    /// An image the request needs (a destination's) could not be uploaded first; nothing was sent.
    case upload(String, SDLFileError)

    /// A readable explanation of the error, for logs.
    public var description: String {
        switch self {
        case .notSent(let error): "\(error)"
        case .unsupported(let reason): "\(reason); nothing was sent"
        case .wrongAppType(let feature, let type): "\(feature) is for \(type.rawValue) apps (add it to the configuration's appTypes); nothing was sent"
        case .invalid(let reason): "\(reason); nothing was sent"
        case .consentDenied(let type, let id): "the driver did not allow control of the \(type.rawValue) module\(id.map { " \($0)" } ?? ""); nothing was set"
        case .refused(let rpc, let code, let info): "the head unit refused \(rpc): \(code.rawValue)" + (info.map { " (\($0))" } ?? "")
        case .failed(let error): "\(error)"
        case .upload(let name, let error): "the image \(name) was not uploaded: \(error); nothing was sent"
        }
    }
}

extension SDLFeatureError: SDLManagerOperationError {}

extension SDLManager {
    /// A system capability from the cache, asked for when missing (RPC 4.5+); nil when the head
    /// unit has none or cannot tell.
    func capability(_ type: SystemCapabilityType) async -> SystemCapability? {
        if let cached = await systemCapabilities.capability(type) { return cached }
        guard await systemCapabilities.isSupported(type), negotiatedRPCVersion >= .version(4, 5) else { return nil }
        return try? await systemCapabilities.update(type)
    }

    /// Closes the app on the head unit (CloseApplication, RPC 6.0+): it goes to HMI level NONE
    /// and stays registered, as if the driver had closed it.
    public func closeApplication() async throws {
        let response = try await send(CloseApplication())
        guard response.success || response.resultCode == .warnings else {
            throw SDLError(SDLFeatureError.refused(CloseApplication.functionName, response.resultCode, info: response.info))
        }
    }
}

extension CloseApplicationResponse: SDLResultCarrying {}

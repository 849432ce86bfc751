// The names of the lower modules that the manager's API uses, re-exported one by one, so that
// `import SmartDeviceLink` and `import SDLRPC` (the generated RPC types) are all an app needs.
// The rest of those modules (frames, codecs, transports' internals) stays behind their own
// imports, out of an app's namespace.

@_exported import struct SDLConcurrency.SDLClock
@_exported import enum SDLProtocol.SDLCRC32
@_exported import struct SDLProtocol.SDLControlPayload
@_exported import struct SDLProtocol.SDLFrameDecoder
@_exported import enum SDLProtocol.SDLH264
@_exported import struct SDLProtocol.SDLNegotiatedSession
@_exported import struct SDLProtocol.SDLProtocolMessage
@_exported import struct SDLProtocol.SDLProtocolVersion
@_exported import struct SDLProtocol.SDLRPCPayload
@_exported import struct SDLProtocol.SDLReassembler
@_exported import struct SDLProtocol.SDLSecurityError
@_exported import protocol SDLProtocol.SDLSecurityProvider
@_exported import struct SDLProtocol.SDLServiceType
@_exported import struct SDLRuntime.SDLEncodingOptions
@_exported import enum SDLRuntime.SDLJSONValue
@_exported import protocol SDLRuntime.SDLNotification
@_exported import protocol SDLRuntime.SDLRequest
@_exported import protocol SDLRuntime.SDLResponse
@_exported import struct SDLRuntime.SDLSpecVersion
@_exported import struct SDLTransport.SDLReconnectPolicy
@_exported import protocol SDLTransport.SDLTransport

// `import SmartDeviceLink` is all an app needs: the generated RPC types, the message protocols
// and the transports come with it.
@_exported import SDLConcurrency
@_exported import SDLProtocol
@_exported import SDLRPC
@_exported import SDLRuntime
@_exported import SDLTransport

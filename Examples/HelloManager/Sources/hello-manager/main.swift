import HelloManager
import SmartDeviceLink

// hello-manager [HOST] [PORT]: connects to a head unit over TCP (`sdl headunit --port 12345`, or
// SDL Core), greets the driver, and ends when they press Bye.
let arguments = CommandLine.arguments.dropFirst()
let host = arguments.first ?? "127.0.0.1"
let port = arguments.dropFirst().first.flatMap { Int($0) } ?? 12345
try await withSDLManager(HelloApp.configuration(transport: .tcp(host: host, port: port))) { manager in
    print("hello-manager: connecting to \(host):\(port)")
    try await HelloApp.greet(on: manager)
    print("hello-manager: the driver pressed Bye")
}

// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "swift-sdl",
    // Synchronization's Mutex (the session's and managers' shared state) needs these; `Duration`
    // and `Clock` alone would allow macOS 13 / iOS 16.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "SDLRuntime", targets: ["SDLRuntime"]),
        .library(name: "SDLRPC", targets: ["SDLRPC"]),
        .library(name: "SDLHMIRPC", targets: ["SDLHMIRPC"]),
        .library(name: "SDLConcurrency", targets: ["SDLConcurrency"]),
        .library(name: "SDLProtocol", targets: ["SDLProtocol"]),
        .library(name: "SDLTransport", targets: ["SDLTransport"]),
        .library(name: "SmartDeviceLink", targets: ["SmartDeviceLink"]),
        .library(name: "SDLAsyncHTTPClient", targets: ["SDLAsyncHTTPClient"]),
        .library(name: "SDLWebSocket", targets: ["SDLWebSocket"]),
        .library(name: "SDLTLS", targets: ["SDLTLS"]),
        .library(name: "SDLCloudServer", targets: ["SDLCloudServer"]),
        .library(name: "SDLHeadUnit", targets: ["SDLHeadUnit"]),
        .library(name: "SDLHeadUnitControl", targets: ["SDLHeadUnitControl"]),
        .library(name: "SDLHMIServer", targets: ["SDLHMIServer"]),
        // The generator's libraries (SDLSpec, SDLCodegen, SDLSpecDiff) are no products: their API is
        // `package`, for sdlgen, sdl and the tests; apps get the generator as sdlgen and the plugins.
        .executable(name: "sdlgen", targets: ["sdlgen"]),
        .executable(name: "sdl", targets: ["sdl"]),
        .executable(name: "sdl-example", targets: ["sdl-example"]),
        .plugin(name: "SDLGeneratorPlugin", targets: ["SDLGeneratorPlugin"]),
        .plugin(name: "SDLGeneratorCommand", targets: ["SDLGeneratorCommand"]),
    ],
    // By audience. An app builds and resolves only what the products it uses need once it names
    // the traits it wants: `.package(url: ..., from: ..., traits: [])` for the app library (and
    // the emulator library for its tests), `["TLS"]` for encryption, WebSocket and cloud apps,
    // `["Generator"]` for the generator plugins, `["HTTPClient"]` for SDLAsyncHTTPClient. Without
    // `traits:` a dependent gets the defaults, everything, as this package does when it is built
    // on its own.
    traits: [
        .default(enabledTraits: ["Tools"]),
        .trait(name: "Generator", description: "sdlgen and the generator plugins (swift-mustache, swift-argument-parser)"),
        .trait(name: "HTTPClient", description: "SDLAsyncHTTPClient: the library's HTTP on AsyncHTTPClient"),
        .trait(
            name: "TLS",
            description: "SDLTLS (encryption), SDLWebSocket and SDLCloudServer (ws and wss): swift-nio-ssl, swift-certificates, swift-crypto"
        ),
        .trait(
            name: "Tools",
            description: "The sdl tool, the emulator's control API and HMI servers, the stand-in HMI, the example app and the test suite's own dependencies",
            enabledTraits: ["Generator", "HTTPClient", "TLS"]
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // libxml2 through pkg-config; Debian/Ubuntu `libxml2-dev`, Homebrew `libxml2`.
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        // zlib, for CRC-32 (PutFile); in the SDK on macOS, `zlib1g-dev` on Debian/Ubuntu.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // The spec model: XML reader, typed model, validator. No dependency on generated code.
        // Its message validator checks JSON messages (SDLRuntime's values) against a loaded spec.
        .target(name: "SDLSpec", dependencies: ["CLibXML2", "SDLRuntime"]),
        // Spec model -> render model -> templates -> files.
        .target(
            name: "SDLCodegen",
            dependencies: ["SDLSpec", .product(name: "Mustache", package: "swift-mustache", condition: .when(traits: ["Generator"]))]
        ),
        // API differences between two specs, classified for apps.
        .target(name: "SDLSpecDiff", dependencies: ["SDLSpec"]),
        .executableTarget(
            name: "sdlgen",
            dependencies: [
                "SDLCodegen", "SDLSpecDiff", .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Generator"])),
            ]
        ),
        // The small base every generated type conforms to.
        .target(name: "SDLRuntime"),
        // The committed output of `sdlgen generate` for spec 8.0.0.
        .target(name: "SDLRPC", dependencies: ["SDLRuntime"], path: "Generated"),
        // The committed output of `sdlgen generate` for SDL Core 8.2.0's HMI_API.xml: the
        // JSON-RPC interface between SDL Core and its HMI, each type in its interface (`UI.Show`).
        .target(name: "SDLHMIRPC", dependencies: ["SDLRuntime"], path: "GeneratedHMI"),
        // Time and fan-out for the async code above the protocol: an injectable clock, a deadline
        // schedule (one timer loop instead of a task per deadline), and one stream fan-out.
        .target(name: "SDLConcurrency", dependencies: [.product(name: "HeapModule", package: "swift-collections")]),
        // SDL protocol: frames, multi-frame messages, RPC and control payloads. No I/O.
        .target(name: "SDLProtocol", dependencies: ["SDLRuntime", "CZlib"]),
        // Byte transports: the protocol, TCP on SwiftNIO, an in-memory pair.
        .target(
            name: "SDLTransport",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // The app side: sessions, the RPC client, managers.
        .target(
            name: "SmartDeviceLink",
            dependencies: [
                "SDLConcurrency", "SDLProtocol", "SDLTransport", "SDLRPC", "SDLRuntime",
                .product(name: "Logging", package: "swift-log"), .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The library's HTTP needs (policy updates, cloud icons) on AsyncHTTPClient, apart so that
        // apps bringing their own SDLHTTPClient do not build it.
        .target(
            name: "SDLAsyncHTTPClient",
            dependencies: [
                "SmartDeviceLink", .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["HTTPClient"])),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // SDL over WebSocket (binary messages, ws and wss), both sides: the listener a cloud app
        // serves on and the client a head unit dials with. Apart because of TLS (swift-nio-ssl).
        // The SDL security handshake's TLS on swift-nio-ssl (BoringSSL) and certificates with
        // swift-certificates: its own module, so apps without encryption do not link BoringSSL.
        .target(
            name: "SDLTLS",
            dependencies: [
                "SDLProtocol", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
                .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["TLS"])),
                .product(name: "SwiftASN1", package: "swift-asn1", condition: .when(traits: ["TLS"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["TLS"])),
            ]
        ),
        .target(
            name: "SDLWebSocket",
            dependencies: [
                "SDLTransport", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
            ]
        ),
        // Cloud apps: the WebSocket server head units dial into, one manager per vehicle.
        .target(
            name: "SDLCloudServer",
            dependencies: [
                "SmartDeviceLink", "SDLWebSocket", "SDLProtocol", "SDLConcurrency", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
            ]
        ),
        // A head unit for apps to talk to: behaves on the wire like SDL Core.
        .target(
            name: "SDLHeadUnit",
            dependencies: [
                "SDLConcurrency", "SDLProtocol", "SDLTransport", "SDLRPC", "SDLHMIRPC", "SDLRuntime",
                .product(name: "Logging", package: "swift-log"), .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // The emulator's HMI API server: HMIs (SDL's own sdl_hmi among them) connect over WebSocket
        // as to SDL Core's port 8087.
        .target(
            name: "SDLHMIServer",
            dependencies: [
                "SDLHeadUnit", .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // A headless HMI over the HMI API (to SDL Core or the emulator's HMI port) that plays the
        // driver for the control API.
        .target(
            name: "SDLStandInHMI",
            dependencies: [
                "SDLHeadUnit", "SDLHMIRPC", "SDLRPC", "SDLRuntime",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The emulator's control API: Hummingbird routes with Codable bodies, and its HTTP server.
        // Kept apart so the emulator itself has no HTTP in it.
        .target(
            name: "SDLHeadUnitControl",
            dependencies: [
                "SDLHeadUnit", "SDLHMIServer", "SDLProtocol", "SDLTransport", "SDLRPC", "SDLRuntime",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The web page, compiled into the binary: nothing to install or find at run time.
            resources: [.embedInCode("WebHMI/index.html"), .embedInCode("WebHMI/hmi.css"), .embedInCode("WebHMI/hmi.js")]
        ),
        // The tool for app engineers: validate messages, and (next) talk to a head unit.
        .executableTarget(
            name: "sdl",
            dependencies: [
                "SDLRPC", "SDLRuntime", "SDLSpec", "SDLProtocol", "SDLTransport", "SmartDeviceLink", "SDLHeadUnit",
                "SDLHeadUnitControl", "SDLStandInHMI", "SDLWebSocket", "SDLTLS", "SDLCloudServer",
                .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["TLS"])),
                .product(name: "SwiftASN1", package: "swift-asn1", condition: .when(traits: ["TLS"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Generator"])),
            ]
        ),
        // The example app: tours of the manager against a head unit.
        .executableTarget(
            name: "sdl-example",
            dependencies: [
                "SmartDeviceLink", "SDLRPC", "SDLRuntime", "SDLAsyncHTTPClient", "SDLCloudServer", "SDLTLS",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Generator"])),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            exclude: ["Resources/make-clip.sh"],
            resources: [.copy("Resources/navigation-800x380.h264")]
        ),
        // Build-tool plugin: a target's MOBILE_API.xml (+ sdlgen.json) -> generated sources at build time.
        .plugin(name: "SDLGeneratorPlugin", capability: .buildTool(), dependencies: ["sdlgen"]),
        // `swift package generate-sdl`: the same generation, written into the source tree.
        .plugin(
            name: "SDLGeneratorCommand",
            capability: .command(
                intent: .custom(verb: "generate-sdl", description: "Generate Swift sources from a target's SDL RPC spec into the package"),
                permissions: [.writeToPackageDirectory(reason: "Writes the generated Swift sources into the target's folder")]
            ),
            dependencies: ["sdlgen"]
        ),

        .testTarget(name: "SDLSpecTests", dependencies: ["SDLSpec", "SDLRuntime", "SDLTestSupport"], path: "Tests/SDLSpecTests"),
        .testTarget(
            name: "SDLSpecDiffTests",
            dependencies: ["SDLSpecDiff", "SDLTestSupport"],
            path: "Tests/SDLSpecDiffTests",
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "SDLCodegenTests",
            dependencies: ["SDLCodegen", "SDLTestSupport"],
            path: "Tests/SDLCodegenTests",
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "SDLRPCTests",
            dependencies: ["SDLRPC", .product(name: "PropertyBased", package: "swift-property-based", condition: .when(traits: ["Tools"]))],
            path: "Tests/SDLRPCTests"
        ),
        .testTarget(
            name: "SDLHMIRPCTests",
            dependencies: ["SDLHMIRPC", "SDLRuntime", "SDLTestSupport"],
            path: "Tests/SDLHMIRPCTests",
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "SDLProtocolTests", dependencies: ["SDLProtocol", "SDLRPC", "SDLTestSupport"], path: "Tests/SDLProtocolTests"),
        .testTarget(name: "SDLConcurrencyTests", dependencies: ["SDLConcurrency"], path: "Tests/SDLConcurrencyTests"),
        .testTarget(
            name: "SDLTLSTests",
            dependencies: ["SDLTLS", "SDLProtocol", .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["TLS"]))],
            path: "Tests/SDLTLSTests"
        ),
        .testTarget(
            name: "SmartDeviceLinkTests",
            dependencies: [
                "SmartDeviceLink", "SDLHeadUnit", "SDLTransport", "SDLConcurrency", "SDLProtocol", "SDLRPC", "SDLTestSupport", "SDLAsyncHTTPClient",
                "SDLCloudServer", "SDLWebSocket", "SDLHeadUnitControl", "SDLTLS",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .target(name: "SwiftUIStandIn", condition: .when(platforms: [.linux, .windows, .android, .wasi, .openbsd])),
            ],
            path: "Tests/SmartDeviceLinkTests"
        ),
        .testTarget(
            name: "SDLCloudTests",
            dependencies: [
                "SDLCloudServer", "SDLWebSocket", "SmartDeviceLink", "SDLHeadUnit", "SDLTransport", "SDLConcurrency", "SDLProtocol", "SDLRPC",
                "SDLRuntime", "SDLTestSupport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
                .product(name: "NIOWebSocket", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/SDLCloudTests",
            // A self-signed certificate for 127.0.0.1 and localhost (valid until 2126), for wss.
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "SDLToolTests", dependencies: ["sdl", "SDLTestSupport"], path: "Tests/SDLToolTests"),
        .testTarget(name: "SDLTransportTests", dependencies: ["SDLTransport"], path: "Tests/SDLTransportTests"),
        .testTarget(
            name: "SDLHeadUnitTests",
            dependencies: [
                "SDLHeadUnit", "SDLRPC", "SDLRuntime", "SDLConcurrency", "SDLProtocol", "SmartDeviceLink", "SDLTransport", "SDLTestSupport",
                // The control API's routes, driven in process (HummingbirdTesting, no socket).
                "SDLHeadUnitControl", .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Tools"])),
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Tools"])),
                // The test HMI: the generated HMI types over a real WebSocket to the HMI server.
                "SDLHMIRPC", "SDLHMIServer", "SDLStandInHMI",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket", condition: .when(traits: ["Tools"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/SDLHeadUnitTests"
        ),
        // SwiftUI's top-level names, for the test that compiles them beside the RPC types on Linux.
        .target(name: "SwiftUIStandIn", path: "Tests/SwiftUIStandIn"),
        // A clock tests advance, and small helpers, shared by the test targets.
        .target(name: "SDLTestSupport", path: "Tests/SDLTestSupport"),
        .testTarget(
            name: "SDLRuntimeTests",
            dependencies: ["SDLRuntime", "SDLRPC", "SDLTestSupport"],
            path: "Tests/SDLRuntimeTests",
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// A member (an extension's method, a conformance's property) is visible only in files that
// import its module: every dependency a file uses is named at its top (SE-0444).
for target in package.targets where target.type != .system && target.type != .plugin {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}

// swift-tools-version: 6.1
// Benchmarks of the JSON and BSON codecs, beside Foundation and pymongo. A separate package so
// the root `swift build` / `swift test` never builds it. Run `Benchmarks/codecs.sh`.
import PackageDescription

let package = Package(
    name: "swift-sdl-benchmarks",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "swift-sdl", path: "..")
    ],
    targets: [
        // Plain Codable structs and enums for the same types, generated at build time by the
        // package's own plugin with CodableTemplates/ (Sources/CodableMirrors/sdlgen.json).
        .target(
            name: "CodableMirrors", path: "Sources/CodableMirrors",
            plugins: [.plugin(name: "SDLGeneratorPlugin", package: "swift-sdl")]
        ),
        // Counts malloc calls, for allocations per message.
        .target(name: "MallocCounter", path: "Sources/MallocCounter"),
        .executableTarget(
            name: "CodecBenchmarks",
            dependencies: [
                "CodableMirrors", "MallocCounter",
                .product(name: "SDLRuntime", package: "swift-sdl"),
                .product(name: "SDLRPC", package: "swift-sdl"),
            ]
        ),
        // Frame throughput and RPC round-trip latency against the emulator (issue 4).
        .executableTarget(
            name: "ProtocolBenchmarks",
            dependencies: [
                "MallocCounter",
                .product(name: "SDLProtocol", package: "swift-sdl"),
                .product(name: "SDLTransport", package: "swift-sdl"),
                .product(name: "SmartDeviceLink", package: "swift-sdl"),
                .product(name: "SDLHeadUnit", package: "swift-sdl"),
                .product(name: "SDLRPC", package: "swift-sdl"),
            ]
        ),
        // Issue 11: start() to Ready and the manager's per-request overhead over the bare client.
        .executableTarget(
            name: "ManagerBenchmarks",
            dependencies: [
                .product(name: "SmartDeviceLink", package: "swift-sdl"),
                .product(name: "SDLHeadUnit", package: "swift-sdl"),
                .product(name: "SDLTransport", package: "swift-sdl"),
                .product(name: "SDLRPC", package: "swift-sdl"),
            ]
        ),
        // A plain loopback socket pair: the baseline of the TCP benchmarks.
        .target(name: "LoopbackBaseline", path: "Sources/LoopbackBaseline"),
        // Issue 12: a 10 MB upload beside raw TCP loopback.
        .executableTarget(
            name: "FileBenchmarks",
            dependencies: [
                "LoopbackBaseline",
                .product(name: "SmartDeviceLink", package: "swift-sdl"),
                .product(name: "SDLHeadUnit", package: "swift-sdl"),
                .product(name: "SDLTransport", package: "swift-sdl"),
            ]
        ),
        // Issue 25: 1080p-sized H.264 access units through the video streaming manager to the
        // emulator over TCP loopback, beside raw TCP loopback; latency per frame.
        .executableTarget(
            name: "StreamingBenchmarks",
            dependencies: [
                "LoopbackBaseline",
                .product(name: "SmartDeviceLink", package: "swift-sdl"),
                .product(name: "SDLHeadUnit", package: "swift-sdl"),
                .product(name: "SDLRPC", package: "swift-sdl"),
                .product(name: "SDLTransport", package: "swift-sdl"),
            ]
        ),
        // Issue 28: protected against plain round trips and video.
        .executableTarget(
            name: "SecurityBenchmarks",
            dependencies: [
                .product(name: "SmartDeviceLink", package: "swift-sdl"),
                .product(name: "SDLHeadUnit", package: "swift-sdl"),
                .product(name: "SDLTLS", package: "swift-sdl"),
            ]
        ),
        // Issue 16: a cloud-app server with 1,000 emulated vehicles dialing in.
        .executableTarget(
            name: "CloudBenchmarks",
            dependencies: [
                "MallocCounter",
                .product(name: "SmartDeviceLink", package: "swift-sdl"),
                .product(name: "SDLCloudServer", package: "swift-sdl"),
                .product(name: "SDLHeadUnit", package: "swift-sdl"),
                .product(name: "SDLRuntime", package: "swift-sdl"),
                .product(name: "SDLWebSocket", package: "swift-sdl"),
                .product(name: "SDLTransport", package: "swift-sdl"),
                .product(name: "SDLRPC", package: "swift-sdl"),
            ]
        ),
        // Issue 45: the HMI API's JSON-RPC codec (SDLJSONRPC) beside JSONDecoder/JSONEncoder over
        // Codable mirrors of the same HMI types (generated at build time with CodableTemplates/),
        // on the corpus in HMIPayloads/.
        .target(
            name: "HMICodableMirrors", path: "Sources/HMICodableMirrors",
            plugins: [.plugin(name: "SDLGeneratorPlugin", package: "swift-sdl")]
        ),
        .executableTarget(
            name: "HMICodecBenchmarks",
            dependencies: [
                "HMICodableMirrors", "MallocCounter",
                .product(name: "SDLRuntime", package: "swift-sdl"),
                .product(name: "SDLHMIRPC", package: "swift-sdl"),
            ]
        ),
        // Writes HMIPayloads/*.json from values built in Swift.
        .executableTarget(
            name: "MakeHMIPayloads",
            dependencies: [
                .product(name: "SDLRuntime", package: "swift-sdl"),
                .product(name: "SDLHMIRPC", package: "swift-sdl"),
            ]
        ),
        // Writes Payloads/*.json from values built in Swift.
        .executableTarget(
            name: "MakePayloads",
            dependencies: [
                .product(name: "SDLRuntime", package: "swift-sdl"),
                .product(name: "SDLRPC", package: "swift-sdl"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

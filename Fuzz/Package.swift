// swift-tools-version:5.4
// libFuzzer targets for the JSON and BSON decoders, the SDL frame decoder and reassembler, and the
// WebSocket-to-SDL-frame path of a cloud-app server. A separate package so the root
// `swift build` / `swift test` never builds it; it only links with `-sanitize=fuzzer`, which
// brings libFuzzer's `main`. Run `Fuzz/run.sh SECONDS`; see README.md.
//
// Tools version 5.4 on purpose: from 5.5 on, SwiftPM links every Swift executable with
// `--defsym main=<Module>_main` (so tests can import executables), which breaks here: the
// targets have no main of their own, libFuzzer's is the one to use.
import PackageDescription

let runtime: [Target.Dependency] = [
    .product(name: "SDLRuntime", package: "swift-sdl"),
    .product(name: "SDLRPC", package: "swift-sdl"),
]

let package = Package(
    name: "swift-sdl-fuzz",
    dependencies: [
        .package(name: "swift-sdl", path: ".."),
        // The same swift-nio the root depends on, for EmbeddedChannel and the WebSocket codec.
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
    ],
    targets: [
        .executableTarget(name: "FuzzJSONDecoder", dependencies: runtime),
        .executableTarget(name: "FuzzBSONDecoder", dependencies: runtime),
        .executableTarget(
            name: "FuzzFrameDecoder", dependencies: [.product(name: "SDLProtocol", package: "swift-sdl")]),
        .executableTarget(
            name: "FuzzSecurityQuery", dependencies: [.product(name: "SDLProtocol", package: "swift-sdl")]),
        .executableTarget(
            name: "FuzzWebSocket",
            dependencies: [
                .product(name: "SDLWebSocket", package: "swift-sdl"), .product(name: "SDLProtocol", package: "swift-sdl"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]),
    ]
)

// swift-tools-version: 6.1
// An app package that uses the manager and nothing else of swift-sdl: `traits: []` keeps the
// tools' dependencies (Hummingbird, AsyncHTTPClient, swift-mustache, swift-argument-parser...)
// out of its resolution and its build. Its test runs the app against the emulator in process.
// Try: swift test --package-path Examples/HelloManager
import PackageDescription

let package = Package(
    name: "HelloManager",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "HelloManager", targets: ["HelloManager"]),
        .executable(name: "hello-manager", targets: ["hello-manager"]),
    ],
    dependencies: [
        // In an app: .package(url: "https://github.com/<owner>/swift-sdl", from: "<version>", traits: []).
        .package(name: "swift-sdl", path: "../..", traits: [])
    ],
    targets: [
        .target(
            name: "HelloManager",
            dependencies: [.product(name: "SmartDeviceLink", package: "swift-sdl"), .product(name: "SDLRPC", package: "swift-sdl")]
        ),
        .executableTarget(
            name: "hello-manager",
            dependencies: ["HelloManager", .product(name: "SmartDeviceLink", package: "swift-sdl")]
        ),
        .testTarget(
            name: "HelloManagerTests",
            dependencies: [
                "HelloManager", .product(name: "SmartDeviceLink", package: "swift-sdl"), .product(name: "SDLRPC", package: "swift-sdl"),
                // The emulator, in process: the app library's own test head unit.
                .product(name: "SDLHeadUnit", package: "swift-sdl"), .product(name: "SDLTransport", package: "swift-sdl"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

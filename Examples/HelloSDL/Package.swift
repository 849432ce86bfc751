// swift-tools-version: 6.1
// An app package that generates its SDL types from its own spec at build time: the target
// HelloSDL holds MOBILE_API.xml and sdlgen.json, and the SDLGeneratorPlugin build plugin turns
// them into Swift while the target builds; HelloHMI does the same with an HMI_API.xml (the format
// of SDL Core's HMI interface), found by its name. Try: swift test --package-path Examples/HelloSDL
import PackageDescription

let package = Package(
    name: "HelloSDL",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "HelloSDL", targets: ["HelloSDL"]),
        .library(name: "HelloHMI", targets: ["HelloHMI"]),
    ],
    dependencies: [
        // In an app: .package(url: "https://github.com/<owner>/swift-sdl", from: "<version>", traits: ["Generator"]).
        // The Generator trait brings sdlgen's own dependencies (for the plugin) and nothing of
        // the emulator's or the tools'.
        .package(name: "swift-sdl", path: "../..", traits: ["Generator"])
    ],
    targets: [
        .target(
            name: "HelloSDL",
            // The generated code imports SDLRuntime.
            dependencies: [.product(name: "SDLRuntime", package: "swift-sdl")],
            plugins: [.plugin(name: "SDLGeneratorPlugin", package: "swift-sdl")]
        ),
        .target(
            name: "HelloHMI",
            dependencies: [.product(name: "SDLRuntime", package: "swift-sdl")],
            plugins: [.plugin(name: "SDLGeneratorPlugin", package: "swift-sdl")]
        ),
        .testTarget(
            name: "HelloHMITests",
            dependencies: ["HelloHMI", .product(name: "SDLRuntime", package: "swift-sdl")]
        ),
        .testTarget(
            name: "HelloSDLTests",
            dependencies: ["HelloSDL", .product(name: "SDLRuntime", package: "swift-sdl")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version:6.0
// Shelf: an offline-first reading companion synced with a Kinto server.
//
// This manifest is the architecture map. Dependencies point one way; the allowed
// graph is written down in README.md and checked by `make check`
// (Scripts/check-module-graph.py), and the test build uses
// `--explicit-target-dependency-import-check error`.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "Shelf",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ArgumentParsing", targets: ["ArgumentParsing"]),
        .library(name: "Domain", targets: ["Domain"]),
        .library(name: "Services", targets: ["Services"]),
        .library(name: "Presentation", targets: ["Presentation"]),
    ],
    targets: [
        // MARK: - Modules

        .target(
            name: "Domain",
            path: "Modules/Domain",
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CCurl",
            path: "Modules/CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "Services",
            dependencies: ["CCurl", "Domain"],
            path: "Modules/Services",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Presentation",
            dependencies: ["Domain"],
            path: "Modules/Presentation",
            swiftSettings: swiftSettings
        ),

        .target(
            name: "ArgumentParsing",
            path: "Modules/ArgumentParsing",
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests

        .target(
            name: "TestSupport",
            dependencies: ["Domain", "Presentation"],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchitectureTests",
            dependencies: ["TestSupport"],
            path: "Tests/ArchitectureTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArgumentParsingTests",
            dependencies: ["ArgumentParsing"],
            path: "Tests/ArgumentParsingTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DomainTests",
            dependencies: ["Domain", "TestSupport"],
            path: "Tests/DomainTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PresentationTests",
            dependencies: ["Domain", "Presentation", "TestSupport"],
            path: "Tests/PresentationTests",
            swiftSettings: swiftSettings
        ),
    ]
)

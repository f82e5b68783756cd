// swift-tools-version:6.0
// Shelf: an offline-first reading companion synced with a Kinto server.
//
// This manifest is the architecture map, read top to bottom: modules, apps,
// benchmarks, tests. Dependencies point one way; the allowed graph is written down
// once in README.md and checked by `make check` (Scripts/check-module-graph.py), and
// the test build uses `--explicit-target-dependency-import-check error`.
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
        .library(name: "Encryption", targets: ["Encryption"]),
        .library(name: "LiveScreens", targets: ["LiveScreens"]),
        .library(name: "Presentation", targets: ["Presentation"]),
        .library(name: "PrivateFiles", targets: ["PrivateFiles"]),
        .library(name: "RecordDTOs", targets: ["RecordDTOs"]),
        .library(name: "Records", targets: ["Records"]),
        .library(name: "Repositories", targets: ["Repositories"]),
        .library(name: "Screens", targets: ["Screens"]),
        .library(name: "Services", targets: ["Services"]),
        .library(name: "ShelfCommands", targets: ["ShelfCommands"]),
        .library(name: "Storage", targets: ["Storage"]),
        .library(name: "Sync", targets: ["Sync"]),
        .library(name: "Terminal", targets: ["Terminal"]),
        .library(name: "Vocabulary", targets: ["Vocabulary"]),
        .library(name: "WorkerCommands", targets: ["WorkerCommands"]),
    ],
    targets: [
        // MARK: - Modules

        // NB: the words every layer shares and that rarely change, below Domain's entities and
        // ports, so a module that needs only these is not rebuilt when an entity changes.
        .target(
            name: "Vocabulary",
            path: "Modules/Vocabulary",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        // NB: re-exports Vocabulary (Modules/Domain/Vocabulary.swift).
        .target(
            name: "Domain",
            dependencies: ["Vocabulary"],
            path: "Modules/Domain",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ArgumentParsing",
            dependencies: ["Vocabulary"],
            path: "Modules/ArgumentParsing",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        // NB: a C target, not a system library: it opens libcurl with dlopen when the
        // first transfer needs it (Modules/CCurl/include/shim.h), so the headers of
        // libcurl4-openssl-dev (`make setup`) are needed to build, the library only to sync.
        .target(
            name: "CCurl",
            path: "Modules/CCurl"
        ),
        .systemLibrary(
            name: "CSQLite",
            path: "Modules/CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CSodium",
            path: "Modules/CSodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        // NB: below everything that writes a private file (the store, the key file, an
        // export, a worker report), so one writer serves them all.
        .target(
            name: "PrivateFiles",
            path: "Modules/PrivateFiles",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        // NB: the wire shape on Vocabulary alone, so Services, Storage and Encryption build
        // beside Domain rather than after it; the DTOs, which map it to Domain's entities,
        // are RecordDTOs, above both.
        .target(
            name: "Records",
            dependencies: ["Vocabulary"],
            path: "Modules/Records",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RecordDTOs",
            dependencies: ["Domain", "Records"],
            path: "Modules/RecordDTOs",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        // NB: Records for the one encoding of a record's fields (`WireJSON`) and the one list
        // of the fields the server owns (`ServerOwnedFields`), which stay outside a seal.
        .target(
            name: "Encryption",
            dependencies: ["CSodium", "PrivateFiles", "Records", "Vocabulary"],
            path: "Modules/Encryption",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Services",
            dependencies: ["CCurl", "Records", "Vocabulary"],
            path: "Modules/Services",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Storage",
            dependencies: ["CSQLite", "Domain", "PrivateFiles", "Records"],
            path: "Modules/Storage",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Repositories",
            dependencies: ["Domain", "PrivateFiles", "RecordDTOs", "Records", "Storage"],
            path: "Modules/Repositories",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Sync",
            dependencies: ["Domain", "Encryption", "PrivateFiles", "RecordDTOs", "Records", "Services", "Storage"],
            path: "Modules/Sync",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Presentation",
            dependencies: ["Domain"],
            path: "Modules/Presentation",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Screens",
            dependencies: ["Domain", "Presentation", "Sync"],
            path: "Modules/Screens",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        // NB: Vocabulary alone, for Shelf's one width rule (`DisplayColumns`) and safe text: the
        // terminal and the CLI's output rules (`ColorChoice`, `OutputPolicy`) build without the
        // store, the network or the view models.
        .target(
            name: "Terminal",
            dependencies: ["Vocabulary"],
            path: "Modules/Terminal",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        // NB: the screens of `shelf ui`: view models drawn as frames; never the store.
        .target(
            name: "LiveScreens",
            dependencies: ["Domain", "Presentation", "Terminal"],
            path: "Modules/LiveScreens",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),

        .target(
            name: "ShelfCommands",
            dependencies: [
                "ArgumentParsing", "Domain", "Encryption", "LiveScreens", "Presentation", "RecordDTOs", "Repositories", "Screens",
                "Services", "Storage", "Sync", "Terminal",
            ],
            path: "Modules/ShelfCommands",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WorkerCommands",
            dependencies: ["ArgumentParsing", "PrivateFiles", "Repositories", "Services", "Storage", "Sync", "Vocabulary"],
            path: "Modules/WorkerCommands",
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),

        // MARK: - Apps

        // NB: each app is its main.swift, which calls its commands library.
        .executableTarget(
            name: "shelf",
            dependencies: ["ShelfCommands"],
            path: "Apps/shelf",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "shelf-sync",
            dependencies: ["WorkerCommands"],
            path: "Apps/shelf-sync",
            exclude: ["README.md", "systemd"],
            swiftSettings: swiftSettings
        ),

        // MARK: - Benchmarks

        .target(
            name: "BenchmarkSupport",
            dependencies: ["Records", "Storage"],
            path: "Benchmarks/BenchmarkSupport",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "shelf-bench-sealed",
            dependencies: ["BenchmarkSupport", "Domain", "Encryption", "Records", "Storage", "Sync"],
            path: "Benchmarks/SealedPages",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "shelf-bench-kdf",
            dependencies: ["Encryption"],
            path: "Benchmarks/KDFCost",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "shelf-bench-local-edits",
            dependencies: ["Domain", "RecordDTOs", "Records", "Services", "Storage"],
            path: "Benchmarks/LocalEdits",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "shelf-json-throughput",
            dependencies: ["Domain", "RecordDTOs", "Records", "Services", "Storage", "Sync"],
            path: "Benchmarks/JSONThroughput",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "LocalLibrarySeed",
            dependencies: ["BenchmarkSupport", "Domain", "Records", "Storage"],
            path: "Benchmarks/LocalLibrarySeed",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "RepositoriesBench",
            dependencies: ["BenchmarkSupport", "Domain", "Repositories", "Storage"],
            path: "Benchmarks/RepositoriesBench",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "TransportBench",
            dependencies: ["RecordDTOs", "Records", "Services"],
            path: "Benchmarks/TransportBench",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "StorageBench",
            dependencies: ["BenchmarkSupport", "Domain", "Storage"],
            path: "Benchmarks/StorageBench",
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests

        .target(
            name: "TestSupport",
            dependencies: ["ArgumentParsing", "Domain", "Presentation", "Records", "Repositories", "Services", "Storage"],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        // A frame that echoes keys, for TerminalTests to drive under tmux.
        .executableTarget(
            name: "shelf-terminal-demo",
            dependencies: ["Terminal"],
            path: "Tests/TerminalDemo",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "StorageCrashProbe",
            dependencies: ["Domain", "Records", "Storage"],
            path: "Tests/StorageCrashProbe",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchitectureTests",
            dependencies: ["Domain", "TestSupport", "WorkerCommands"],
            path: "Tests/ArchitectureTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArgumentParsingTests",
            dependencies: ["ArgumentParsing", "TestSupport"],
            path: "Tests/ArgumentParsingTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ConvergenceHarnessTests",
            dependencies: ["shelf", "shelf-sync", "TestSupport"],
            path: "Tests/ConvergenceHarnessTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DomainTests",
            dependencies: ["Domain", "TestSupport"],
            path: "Tests/DomainTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EncryptionTests",
            dependencies: ["CSodium", "Domain", "Encryption", "Records", "TestSupport"],
            path: "Tests/EncryptionTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["Domain", "RecordDTOs", "Records", "Services", "TestSupport"],
            path: "Tests/IntegrationTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LiveScreensTests",
            dependencies: ["Domain", "LiveScreens", "Presentation", "Terminal", "TestSupport"],
            path: "Tests/LiveScreensTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PresentationTests",
            dependencies: ["Domain", "Presentation", "TestSupport"],
            path: "Tests/PresentationTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RecordDTOsTests",
            dependencies: ["Domain", "RecordDTOs", "Records", "TestSupport"],
            path: "Tests/RecordDTOsTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RecordsTests",
            dependencies: ["Records", "TestSupport", "Vocabulary"],
            path: "Tests/RecordsTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RepositoriesTests",
            dependencies: ["Domain", "RecordDTOs", "Records", "Repositories", "Services", "Storage", "TestSupport"],
            path: "Tests/RepositoriesTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ScreensTests",
            dependencies: ["Domain", "Presentation", "Screens", "Sync", "TestSupport"],
            path: "Tests/ScreensTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ServicesTests",
            dependencies: ["Domain", "Records", "Services", "TestSupport"],
            path: "Tests/ServicesTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ShelfCLITests",
            dependencies: ["ArgumentParsing", "ShelfCommands", "TestSupport", "shelf"],
            path: "Tests/ShelfCLITests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SyncTests",
            dependencies: ["Domain", "Encryption", "Records", "Repositories", "Services", "Storage", "Sync", "TestSupport"],
            path: "Tests/SyncTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TerminalTests",
            dependencies: ["Terminal", "TestSupport", "Vocabulary", "shelf-terminal-demo"],
            path: "Tests/TerminalTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "VocabularyTests",
            dependencies: ["Vocabulary"],
            path: "Tests/VocabularyTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WorkerTests",
            dependencies: ["ArgumentParsing", "Domain", "Records", "Services", "ShelfCommands", "Storage", "Sync", "TestSupport", "WorkerCommands", "shelf", "shelf-sync"],
            path: "Tests/WorkerTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PrivateFilesTests",
            dependencies: ["PrivateFiles"],
            path: "Tests/PrivateFilesTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StorageTests",
            dependencies: ["Domain", "Records", "Storage", "StorageCrashProbe", "TestSupport"],
            path: "Tests/StorageTests",
            swiftSettings: swiftSettings
        ),
    ]
)

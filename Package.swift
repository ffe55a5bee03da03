// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "swift-binding",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Binding", targets: ["Binding"]),
    .library(name: "CollectionController", targets: ["CollectionController"]),
    // The demo: `swift run music-catalog` (add `--interactive` to type edits).
    .executable(name: "music-catalog", targets: ["MusicCatalogDemo"]),
  ],
  targets: [
    .target(name: "_BindingThreadLocal"),
    .target(name: "Binding", dependencies: ["_BindingThreadLocal"]),
    // COLLECTION_CONTROLLER_INTERNAL_CHECKS compiles the engine's `_checkInvariants()` methods
    // (O(n) structural checks of the ordered index); without it they are empty `@inline(__always)`
    // functions. It is on in debug builds, so tests check invariants; release builds never pay.
    // To check a release build too:
    //   swift test -c release -Xswiftc -DCOLLECTION_CONTROLLER_INTERNAL_CHECKS
    .target(
      name: "CollectionController",
      dependencies: ["Binding"],
      swiftSettings: [
        .define("COLLECTION_CONTROLLER_INTERNAL_CHECKS", .when(configuration: .debug))
      ]
    ),
    // The demo's models, screens and commands, in a library so that tests can drive them; the
    // executable is its `main.swift`.
    .target(name: "MusicCatalog", dependencies: ["Binding", "CollectionController"]),
    .executableTarget(name: "MusicCatalogDemo", dependencies: ["MusicCatalog"]),
    // What both test targets use: a live-instance tracker and a seeded generator (tests lock
    // with Binding's package lock, which ThreadSanitizer sees). Not a product.
    .target(name: "TestSupport", dependencies: ["Binding"], path: "Tests/TestSupport"),
    .testTarget(name: "BindingTests", dependencies: ["Binding", "TestSupport"]),
    .testTarget(
      name: "CollectionControllerTests", dependencies: ["CollectionController", "TestSupport"]),
    .testTarget(name: "MusicCatalogTests", dependencies: ["MusicCatalog", "TestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)

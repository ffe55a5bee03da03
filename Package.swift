// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "swift-binding",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Binding", targets: ["Binding"]),
    .library(name: "CollectionController", targets: ["CollectionController"]),
  ],
  targets: [
    .target(name: "Binding"),
    .target(name: "CollectionController", dependencies: ["Binding"]),
    .testTarget(name: "BindingTests", dependencies: ["Binding"]),
    .testTarget(name: "CollectionControllerTests", dependencies: ["CollectionController"]),
  ],
  swiftLanguageModes: [.v6]
)

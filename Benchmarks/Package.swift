// swift-tools-version: 6.0
import Foundation
import PackageDescription

// The benchmark lives in its own package so that the library itself stays dependency-free.
// A path dependency's identity is its folder's name, which depends on where the repository was
// cloned, so it is computed here.
let parentIdentity = URL(fileURLWithPath: Context.packageDirectory)
  .deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
  name: "BindingBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: ".."),
    .package(url: "https://github.com/OpenCombine/OpenCombine.git", exact: "0.14.0"),
  ],
  targets: [
    .target(name: "CHeapStats"),
    .executableTarget(
      name: "BindingBenchmarks",
      dependencies: [
        "CHeapStats",
        .product(name: "Binding", package: parentIdentity),
        .product(name: "CollectionController", package: parentIdentity),
        .product(name: "OpenCombine", package: "OpenCombine"),
      ],
      // Function merging folds loops that differ only in what they call (`setObserved` and
      // `setAddress`) into one that calls through a pointer, while a loop without a twin
      // (`setPlain`) keeps its direct call: the two sides of a ratio would not pay the same.
      swiftSettings: [.unsafeFlags(["-Xfrontend", "-disable-llvm-merge-functions-pass"])]
    ),
  ],
  swiftLanguageModes: [.v6]
)

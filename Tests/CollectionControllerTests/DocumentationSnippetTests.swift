import Foundation
import Testing

/// The documentation's examples are the tests' code: every region of a test file between
/// `// snippet NAME: DOCUMENTS` and `// end snippet` is shown, line for line, as a ```swift
/// block in each listed document, and every ```swift block of the documentation is such a
/// region. A document is `README.md`, `MODULE/ARTICLE.md` for
/// `Sources/MODULE/MODULE.docc/ARTICLE.md` (an article, or `MODULE/Extensions/NAME.md`), or a
/// source file by its path (`Sources/Binding/Coalescing.swift`), whose blocks are those of its
/// `///` documentation comments. A list of documents that ends with a comma goes on in the next
/// comment line. The region is compared with its indentation removed, and the block without its
/// leading `import` lines (a document shows its imports; the test file has them at its top).
/// Regions are in both test targets (Tests/).
@Suite struct DocumentationSnippetTests {}

/// A region of a test file shown in documents.
private struct Snippet {
  var name: String
  var file: String
  var documents: [String]
  var lines: [String]
}

/// The package's root directory (this file is Tests/CollectionControllerTests/...).
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()

/// `lines` without their common leading spaces, trailing spaces, and leading and trailing
/// empty lines.
private func dedented(_ lines: [String]) -> [String] {
  var trimmed = lines.map { line in
    String(line.reversed().drop { $0 == " " }.reversed())
  }
  while trimmed.first?.isEmpty == true { trimmed.removeFirst() }
  while trimmed.last?.isEmpty == true { trimmed.removeLast() }
  let indent =
    trimmed.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
  return trimmed.map { String($0.dropFirst(indent)) }
}

/// The regions of every Swift file under Tests/.
private func snippets() throws -> [Snippet] {
  let tests = root.appendingPathComponent("Tests")
  var result: [Snippet] = []
  let files = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)
  while let url = files?.nextObject() as? URL {
    guard url.pathExtension == "swift" else { continue }
    let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
    var open: Snippet?
    var listContinues = false  // the header's list of documents ended with a comma
    for line in lines {
      let text = line.trimmingCharacters(in: .whitespaces)
      func documents(in list: Substring) -> [String] {
        listContinues = list.hasSuffix(",")
        return list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      }
      if text.hasPrefix("// snippet "), let colon = text.firstIndex(of: ":") {
        let name = text[text.index(text.startIndex, offsetBy: 11)..<colon]
        open = Snippet(
          name: String(name), file: url.lastPathComponent,
          documents: documents(in: text[text.index(after: colon)...]), lines: [])
      } else if listContinues, open != nil, text.hasPrefix("// ") {
        open?.documents += documents(in: text.dropFirst(3))
      } else if text == "// end snippet", let snippet = open {
        result.append(
          Snippet(
            name: snippet.name, file: snippet.file, documents: snippet.documents,
            lines: dedented(snippet.lines)))
        open = nil
      } else if open != nil {
        listContinues = false
        open?.lines.append(line)
      }
    }
  }
  return result
}

/// The file a document names (see `DocumentationSnippetTests`).
private func path(of document: String) -> String {
  if document.hasSuffix(".swift") || !document.contains("/") { return document }
  let parts = document.split(separator: "/", maxSplits: 1)
  return "Sources/\(parts[0])/\(parts[0]).docc/\(parts[1])"
}

/// The ```swift blocks of a document, each without its leading `import` lines; in a source
/// file, those of its `///` comments.
private func swiftBlocks(of document: String) throws -> [[String]] {
  let text = try String(
    contentsOf: root.appendingPathComponent(path(of: document)), encoding: .utf8)
  var lines = text.components(separatedBy: "\n")
  if document.hasSuffix(".swift") {
    // A documentation comment's text; any other line ends a block (none should).
    lines = lines.map { line in
      let text = line.trimmingCharacters(in: .whitespaces)
      guard text.hasPrefix("///") else { return "\u{0}" }
      let comment = text.dropFirst(3)
      return String(comment.first == " " ? comment.dropFirst() : comment)
    }
  }
  var blocks: [[String]] = []
  var block: [String]?
  for line in lines {
    if block == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
      block = []
    } else if let lines = block,
      line.trimmingCharacters(in: .whitespaces) == "```" || line == "\u{0}"
    {
      blocks.append(Array(dedented(lines).drop { $0.hasPrefix("import ") || $0.isEmpty }))
      block = nil
    } else if block != nil {
      block?.append(line)
    }
  }
  return blocks
}

/// The blocks that are not Swift a test can compile, each by its document and first line, with
/// the reason and where it is checked instead. Keep this list short: a fragment is written as
/// part of a region that compiles, and only what is not Swift source at all belongs here.
private let notCompiled: [(document: String, firstLine: String, reason: String)] = [
  (
    "README.md",
    "// Package.swift of your package (Apple platforms: the package needs these versions)",
    "a manifest's lines; Scripts/check-install builds a package that depends on this one with them"
  ),
  (
    "Binding/GettingStarted.md", ".package(path: \"../swift-binding\"),",
    "a manifest's lines, the README's (ArticleExamplesTests.theArticlesManifestLinesAreTheReadmes)"
  ),
  (
    "CollectionController/GettingStarted.md",
    ".product(name: \"Binding\", package: \"swift-binding\"),",
    "a manifest's lines, the README's (ArticleExamplesTests.theArticlesManifestLinesAreTheReadmes)"
  ),
]

/// Every document with examples: the README, the DocC articles and the source files.
private func documents() -> [String] {
  var result = ["README.md"]
  let sources = root.appendingPathComponent("Sources")
  let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
  while let url = files?.nextObject() as? URL {
    let relative = url.path.dropFirst(root.path.count + 1)
    if url.pathExtension == "swift" {
      result.append(String(relative))
    } else if url.pathExtension == "md", relative.contains(".docc/") {
      // Sources/MODULE/MODULE.docc/REST -> MODULE/REST
      let parts = relative.split(separator: "/", maxSplits: 3)
      result.append("\(parts[1])/\(parts[3])")
    }
  }
  return result.sorted()
}

extension DocumentationSnippetTests {
  /// Every checked region is shown unchanged in each document it names, and the named tests'
  /// regions exist (a region lost to an edit would otherwise check nothing).
  @Test func everyCheckedExampleIsShownAsTheTestsCompileIt() throws {
    let all = try snippets()
    let names = Set(all.map(\.name))
    for expected in [
      "table-data-source", "table-batch-updates", "table-change-sets", "table-delegate",
      "table-diffable", "unsectioned-delegate", "swiftui-list", "readme-controller",
      "readme-observe", "readme-bind",
    ] {
      #expect(names.contains(expected), "no region named \(expected) under Tests/")
    }
    #expect(names.count == all.count, "two regions share a name")
    for snippet in all {
      #expect(!snippet.documents.isEmpty, "\(snippet.name) names no document")
      for document in snippet.documents {
        let blocks = try swiftBlocks(of: document)
        #expect(
          blocks.contains(snippet.lines),
          """
          \(document) has no ```swift block equal to the region \(snippet.name) of \
          \(snippet.file); the region reads:
          \(snippet.lines.joined(separator: "\n"))
          """)
      }
    }
  }

  /// The converse: no example of the documentation is left out of the tests. A block that
  /// cannot be compiled as it stands (a fragment) is written as part of a region that can.
  @Test func everyExampleOfTheDocumentationIsChecked() throws {
    let all = try snippets()
    var unchecked: [String] = []
    var examined: Set<String> = []  // the documents with examples
    for document in documents() {
      let checked = all.filter { $0.documents.contains(document) }.map(\.lines)
      if try !swiftBlocks(of: document).isEmpty { examined.insert(document) }
      let exempt = notCompiled.filter { $0.document == document }.map(\.firstLine)
      for block in try swiftBlocks(of: document)
      where !checked.contains(block) && !exempt.contains(block.first ?? "") {
        unchecked.append("\(document):\n\(block.joined(separator: "\n"))")
      }
    }
    // The reader finds the blocks of each kind of document (a broken reader would find none).
    for document in [
      "README.md", "CollectionController/GettingStarted.md", "Sources/Binding/Coalescing.swift",
    ] {
      #expect(examined.contains(document), "no example found in \(document)")
    }
    #expect(
      unchecked.isEmpty,
      """
      \(unchecked.count) examples are no test's region (write each in a test file between \
      `// snippet NAME: DOCUMENT` and `// end snippet`):
      \(unchecked.joined(separator: "\n\n"))
      """)
  }
}

import Foundation
import Testing

/// The documentation's checked examples are the tests' code: every region of a test file
/// between `// snippet NAME: DOCUMENTS` and `// end snippet` is shown, line for line, as a
/// ```swift block in each listed document (`README.md`, or `MODULE/ARTICLE.md` for
/// `Sources/MODULE/MODULE.docc/ARTICLE.md`; a list that ends with a comma goes on in the next
/// comment line). The region is compared with its indentation
/// removed, and the block without its leading `import` lines (a document shows its imports;
/// the test file has them at its top). Regions are in both test targets (Tests/).
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

/// The ```swift blocks of a document, each without its leading `import` lines.
private func swiftBlocks(of document: String) throws -> [[String]] {
  let path: String
  if document.contains("/") {
    let parts = document.split(separator: "/")
    path = "Sources/\(parts[0])/\(parts[0]).docc/\(parts[1])"
  } else {
    path = document
  }
  let text = try String(
    contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  var blocks: [[String]] = []
  var block: [String]?
  for line in text.components(separatedBy: "\n") {
    if block == nil, line == "```swift" {
      block = []
    } else if block != nil, line == "```" {
      // Safe: `block` is not nil here.
      let lines = dedented(block!)
      blocks.append(Array(lines.drop { $0.hasPrefix("import ") || $0.isEmpty }))
      block = nil
    } else if block != nil {
      block?.append(line)
    }
  }
  return blocks
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
}

import Binding
import CollectionController
import Foundation
import Observation
import Testing

// The examples of CollectionController's DocC articles (the landing page CollectionController.md
// and GettingStarted.md), as the articles show them (`DocumentationSnippetTests` fails when an
// article's block and its region differ), run, and checked against what their comments claim.
// An article's blocks that build on each other are consecutive regions of one test, in the
// article's order; the article's table view and SwiftUI examples, which are types, are in
// TableViewExamplesTests.swift. The examples call `print`: each test declares a local `print`
// that records the lines instead, so that what they print is checked too.

@Suite struct ArticleExamplesTests {}

/// The root directory of the package (this file is Tests/CollectionControllerTests/...).
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()

extension ArticleExamplesTests {
  /// The landing page's example, on the albums of `ReadmeExamplesTests` (dated by a release
  /// date): three in the 1950s, one in the 1970s.
  @Test func theLandingPageExample() throws {
    let artist = ReadmeExamplesTests.Artist()
    artist.albums = [
      .init("Birth of the Cool", year: 1957), .init("Milestones", year: 1958),
      .init("Kind of Blue", year: 1959), .init("Bitches Brew", year: 1970),
    ]
    // snippet collectioncontroller-overview: CollectionController/CollectionController.md
    let albums = try RelationController(
      \.albums, of: artist,
      filter: .matching { !$0.isLive },
      sortedBy: [SortDescriptor(\.releaseDate)],
      sectionedBy: { $0.decade },
      observing: [\.title])

    let album = albums.object(at: RowPosition(section: 0, row: 2))  // O(log n)
    let token = albums.onChange { changes in  // keep it: released, it ends the handler
      // changes.deletedSections, .insertedSections, .deletedRows, .insertedRows, .movedRows,
      // .updatedRows: apply them as they are in performBatchUpdates
    }
    // end snippet
    #expect(album.title == "Kind of Blue")
    #expect(albums.sections.map(\.key) == [1950, 1970])
    artist.albums[3].isLive = true  // filtered out: its section goes
    #expect(albums.sections.map(\.key) == [1950])
    token.cancel()
  }

  /// GettingStarted.md, from its models to the dependency tracker, in order (its table view
  /// and SwiftUI types are TableViewExamplesTests.swift's).
  @Test func theGettingStartedArticle() throws {
    let printed = _Lock<[String]>([])
    @Sendable func print(_ items: Any..., separator: String = " ") {
      let line = items.map { "\($0)" }.joined(separator: separator)
      printed.withLock { $0.append(line) }
    }
    /// The lines printed since the last call.
    func printedLines() -> [String] {
      printed.withLock { lines in
        defer { lines = [] }
        return lines
      }
    }

    // snippet started-models: CollectionController/GettingStarted.md
    final class Artist: ObservableModel {
      let observation = ObservationStorage()
      @Observed var albums: [Album] = []
    }

    final class Album: ObservableModel {
      let observation = ObservationStorage()
      @Observed var title: String
      @Observed var year: Int
      @Observed var isLive = false
      var decade: Int { year / 10 * 10 }

      init(_ title: String, year: Int) {
        self.title = title
        self.year = year
      }
    }
    // end snippet

    // snippet started-controller: CollectionController/GettingStarted.md
    let artist = Artist()
    artist.albums = [
      Album("Kind of Blue", year: 1959), Album("Bitches Brew", year: 1970),
      Album("Live-Evil", year: 1971),
    ]
    artist.albums[2].isLive = true

    let albums = try RelationController(
      \.albums, of: artist,
      filter: .matching { !$0.isLive },  // or a Foundation Predicate<Album>
      sortedBy: [SortDescriptor(\.year)],
      sectionedBy: { $0.decade },
      observing: [\.title])
    // end snippet

    // snippet started-read: CollectionController/GettingStarted.md
    let names = albums.sections.map { $0.name }  // ["1950", "1970"]
    let count = albums.numberOfObjects(inSection: 1)  // 1
    let album = albums.object(at: RowPosition(section: 1, row: 0))  // Bitches Brew
    let position = albums.position(of: artist.albums[0])  // section 0, row 0 (nil if not shown)
    // end snippet
    #expect(names == ["1950", "1970"])
    #expect(count == 1)
    #expect(album.title == "Bitches Brew")
    #expect(position == RowPosition(section: 0, row: 0))
    #expect(albums.position(of: artist.albums[2]) == nil)  // Live-Evil is filtered out

    // snippet started-changes: CollectionController/GettingStarted.md
    let token = albums.onChange { (changes: RelationChangeSet<Album>) in  // keep the token
      print(changes)  // deleted and inserted sections, then row deletes, inserts, moves, updates
    }

    artist.albums.append(Album("Tutu", year: 1986))  // one write: a new section with its row
    // prints "ChangeSet(+sections: 2)"
    coalesce {
      artist.albums[0].title = "Kind of Blue (Legacy)"  // observed attribute: an update
      artist.albums[1].year = 1969  // moves to the 1960s: its section goes, another comes
    }
    // prints "ChangeSet(-sections: 1; +sections: 1; updates: [0, 0])"
    token.cancel()
    // end snippet
    #expect(
      printedLines() == [
        "ChangeSet(+sections: 2)", "ChangeSet(-sections: 1; +sections: 1; updates: [0, 0])",
      ])
    #expect(albums.sections.map(\.name) == ["1950", "1960", "1980"])

    // snippet started-observation-tracking: CollectionController/GettingStarted.md
    withObservationTracking {
      _ = albums.sections
    } onChange: {
      print("the content changed")  // before the change set's receivers run
    }
    // end snippet
    let seen = albums.onChange { _ in print("a change set") }
    artist.albums[0].year = 1958  // moves nothing, changes a key the sort reads: an update
    #expect(printedLines() == ["the content changed", "a change set"])
    seen.cancel()

    // snippet started-edits: CollectionController/GettingStarted.md
    artist.insert(Album("Sketches of Spain", year: 1960), at: 0, into: \.albums)
    artist.apply(.move(from: 0, to: 2), to: \.albums)
    let removed = artist.remove(at: 1, from: \.albums)
    // end snippet
    #expect(removed.title == "Bitches Brew")
    #expect(
      artist.albums.map(\.title) == [
        "Kind of Blue (Legacy)", "Sketches of Spain", "Live-Evil", "Tutu",
      ])
    #expect(
      albums.sections.map { $0.objects.map(\.title) } == [
        ["Kind of Blue (Legacy)"], ["Sketches of Spain"], ["Tutu"],
      ])

    // snippet started-reconfigure: CollectionController/GettingStarted.md
    try albums.reconfigure { configuration in
      configuration.filter = nil
      configuration.sortedBy = [SortDescriptor(\.title)]
    }
    // end snippet
    #expect(
      albums.sections.map { $0.objects.map(\.title) } == [
        ["Kind of Blue (Legacy)"], ["Sketches of Spain"], ["Live-Evil"], ["Tutu"],
      ])

    // snippet started-dependencies: CollectionController/GettingStarted.md
    final class Customer: ObservableModel {
      let observation = ObservationStorage()
      @Observed var name = ""
    }

    let customer = Customer()
    let tracker = DependencyTracker(onDismiss: { print("close the screen") }) { event in
      switch event {
      case .updated(let object, let changes): print(type(of: object), changes.names)
      case .deleted(let object): print(type(of: object), "deleted")
      }
    }
    tracker.add(customer)
    tracker.add(artist)

    coalesce {
      customer.name = "Ada"
      artist.albums = []
    }
    // prints "Customer ["name"]", then "Artist ["albums"]"
    customer.announceDeletion()
    // prints "Customer deleted", then "close the screen"
    // end snippet
    #expect(
      printedLines() == [
        #"Customer ["name"]"#, #"Artist ["albums"]"#, "Customer deleted", "close the screen",
      ])
    #expect(albums.sections.isEmpty)
  }

  /// The articles' `Package.swift` lines (not Swift a test compiles) are lines of the README's
  /// Installation block, which `Scripts/check-install` builds in a new package.
  @Test func theArticlesManifestLinesAreTheReadmes() throws {
    func lines(_ path: String) throws -> [String] {
      try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
        .components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }
    let readme = try lines("README.md")
    let installation = try #require(readme.firstIndex(of: "## Installation"))
    let manifest = readme[installation...].prefix { $0 != "## Observe a model" }
    for article in [
      "Sources/Binding/Binding.docc/GettingStarted.md",
      "Sources/CollectionController/CollectionController.docc/GettingStarted.md",
    ] {
      let text = try lines(article)
      let start = try #require(
        text.indices.first { text[$0] == "```swift" && text[$0 + 1].hasPrefix(".") },
        "\(article) has no manifest block")
      let block = text[(start + 1)...].prefix { $0 != "```" }
      #expect(block.count >= 2)
      for line in block where !line.hasPrefix("//") {
        #expect(manifest.contains(line), "\(article): \(line) is not in the README's manifest")
      }
    }
  }
}

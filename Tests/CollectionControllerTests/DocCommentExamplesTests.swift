import Binding
import Foundation
import Synchronization
import Testing

@testable import CollectionController

// The examples of the documentation comments of Sources/CollectionController, compiled and run.
// Each region between `// snippet NAME: DOCUMENT` and `// end snippet` is, line for line, a
// ```swift block of the `///` comments of the source file it names; `DocumentationSnippetTests`
// fails when the two differ. Change them together. The examples read `artist`, `albums`,
// `album` or `tableView` from the test around them, with this suite's own models (nested
// types: `Album` here is `DocCommentExamplesTests.Album`, with what the examples read of an
// album), and what an example prints is checked (`printed(_:)`).
@Suite struct DocCommentExamplesTests {}

// MARK: - Models

extension DocCommentExamplesTests {
  /// A record label.
  final class Label: ObservableModel {
    let observation = ObservationStorage()
    @Observed var name: String

    init(_ name: String) { self.name = name }
  }

  /// An album, with every attribute the examples read. Hashable by identity (for sets).
  final class Album: ObservableModel, Hashable, CustomStringConvertible {
    let observation = ObservationStorage()
    @Observed var title: String
    @Observed var year: Int
    @Observed var isLive: Bool
    @Observed var rating: Int
    @Observed var label: Label?

    init(_ title: String, year: Int, isLive: Bool = false, rating: Int = 3) {
      self.title = title
      self.year = year
      self.isLive = isLive
      self.rating = rating
    }

    /// January 1 of `year` (about: a year is 365.25 days here).
    var releaseDate: Date { Date(timeIntervalSince1970: Double(year - 1970) * 31_557_600) }
    var decade: Int { year / 10 * 10 }
    var description: String { title }

    static func == (lhs: Album, rhs: Album) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
  }

  /// The owner of the relations.
  final class Artist: ObservableModel {
    let observation = ObservationStorage()
    @Observed var albums: [Album]
    @Observed var albumSet: Set<Album> = []

    init(_ albums: [Album] = []) { self.albums = albums }
  }

  /// A tag of photos: the elements of a set relation.
  final class Tag: ObservableModel, Hashable {
    let observation = ObservationStorage()
    let name: String
    @Observed var isPublic: Bool

    init(_ name: String, isPublic: Bool) {
      self.name = name
      self.isPublic = isPublic
    }

    static func == (lhs: Tag, rhs: Tag) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
  }

  /// The owner of a set relation.
  final class Photo: ObservableModel {
    let observation = ObservationStorage()
    @Observed var tags: Set<Tag>

    init(_ tags: Set<Tag>) { self.tags = tags }
  }

  /// A row of a list of one's own, made from an album.
  struct AlbumRow: Equatable {
    let title: String

    init(_ album: Album) { title = album.title }
  }

  /// Six albums, in release order: three of the 1950s, a studio and a live one of the 1970s,
  /// one of the 1980s.
  static func sampleArtist() -> Artist {
    Artist([
      Album("Birth of the Cool", year: 1957),
      Album("Milestones", year: 1958),
      Album("Kind of Blue", year: 1959),
      Album("Bitches Brew", year: 1970),
      Album("Live-Evil", year: 1971, isLive: true),
      Album("Tutu", year: 1986),
    ])
  }
}

// MARK: - Helpers

extension DocCommentExamplesTests {
  /// What the examples of one test print (`printed(_:)`, `printedAsync(_:)`): a task-local value, so that tests
  /// running in parallel keep theirs apart, which the tasks a test creates inherit.
  final class Transcript: Sendable {
    @TaskLocal static var current: Transcript?
    let lines = Mutex<[String]>([])
  }

  /// Runs `body` and returns the lines that the examples in it printed.
  static func printed(_ body: () throws -> Void) rethrows -> [String] {
    let transcript = Transcript()
    try Transcript.$current.withValue(transcript) { try body() }
    return transcript.lines.withLock { $0 }
  }

  /// Runs `body` and returns the lines that the examples in it printed.
  static func printedAsync(_ body: () async throws -> Void) async rethrows -> [String] {
    let transcript = Transcript()
    try await Transcript.$current.withValue(transcript) { try await body() }
    return transcript.lines.withLock { $0 }
  }

  /// Waits until a `for await` loop over `controller.changes` runs (a task began it).
  static func untilIterating<Element, Key>(_ controller: RelationController<Element, Key>) async {
    while controller._lock.withLock({ $0.streams.isEmpty }) {
      await Task.yield()
    }
  }

  /// A table view's data source over a controller in sections by decade: each row shows the
  /// album's title, each header the section's name.
  @MainActor
  final class AlbumTitles: NSObject, UITableViewDataSource {
    let albums: RelationController<Album, Int>

    init(albums: RelationController<Album, Int>) {
      self.albums = albums
    }

    func numberOfSections(in tableView: UITableView) -> Int {
      albums.numberOfSections
    }

    // snippet cc-controller-number-of-objects: Sources/CollectionController/Relation/RelationController.swift
    func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {
      albums.numberOfObjects(inSection: section)
    }
    // end snippet

    func tableView(_ tableView: UITableView, titleForHeaderInSection section: Int) -> String? {
      albums.section(at: section).name
    }

    func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
      let cell = tableView.dequeueReusableCell(withIdentifier: "album", for: indexPath)
      var content = cell.defaultContentConfiguration()
      content.text = albums.object(at: RowPosition(indexPath)).title
      cell.contentConfiguration = content
      return cell
    }
  }

  /// A loaded table view showing `albums` through `dataSource` (which the caller keeps: a table
  /// view holds its data source weakly).
  @MainActor
  static func tableView(showing dataSource: AlbumTitles) -> UITableView {
    let tableView = UITableView()
    tableView.register(UITableViewCell.self, forCellReuseIdentifier: "album")
    tableView.dataSource = dataSource
    tableView.layoutIfNeeded()
    return tableView
  }

  /// What a table view showing `albums` shows when it is up to date.
  @MainActor
  static func content(of albums: RelationController<Album, Int>) -> [UITableView.ShownContent] {
    albums.sections.map { section in
      UITableView.ShownContent(header: section.name, rows: section.objects.map(\.title))
    }
  }
}

/// Prints into the transcript of the test running (see `DocCommentExamplesTests.printed(_:)`),
/// or to the standard output outside one. It shadows the standard library's `print` in this
/// file, with the same signature.
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
  let line = items.map { "\($0)" }.joined(separator: separator)
  if let transcript = DocCommentExamplesTests.Transcript.current {
    transcript.lines.withLock { $0.append(line) }
  } else {
    Swift.print(line, terminator: terminator)
  }
}

// MARK: - RelationController.swift

extension DocCommentExamplesTests {
  /// The class overview: a filtered, sorted, sectioned controller with observed titles, and a
  /// fine-grained insertion.
  @Test func theOverviewsControllerShowsAnInsertion() throws {
    let artist = Self.sampleArtist()
    let album = Album("Jack Johnson", year: 1971)
    // snippet cc-controller-overview: Sources/CollectionController/Relation/RelationController.swift
    let albums = try RelationController(
      \.albums, of: artist,
      filter: .matching { !$0.isLive },
      sortedBy: [SortDescriptor(\.releaseDate)],
      sectionedBy: { $0.decade },
      observing: [\.title])
    let token = albums.onChange { changes in  // keep the token: released, it ends the handler
      // changes.deletedSections, .insertedSections, .deletedRows, .insertedRows, .movedRows,
      // .updatedRows; albums.sections already shows the new content
    }
    artist.insert(album, at: 0, into: \.albums)  // fine-grained: O(log n) for the controller
    // end snippet
    #expect(
      albums.sections.map { $0.objects.map(\.title) } == [
        ["Birth of the Cool", "Milestones", "Kind of Blue"], ["Bitches Brew", "Jack Johnson"],
        ["Tutu"],
      ])
    #expect(token.isActive)
  }

  @Test func eachSectionHasANameAndACount() throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(\.albums, of: artist, sectionedBy: { $0.decade })
    let lines = Self.printed {
      // snippet cc-controller-section: Sources/CollectionController/Relation/RelationController.swift
      for section in albums.sections {
        print(section.name, section.count)
      }
      // end snippet
    }
    #expect(lines == ["1950 3", "1970 2", "1980 1"])
  }

  /// The snapshot fills a diffable data source's snapshot (UIKit's, modelled in Support/).
  @Test func theSnapshotFillsADiffableDataSourcesSnapshot() throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(\.albums, of: artist, sectionedBy: { $0.decade })
    // snippet cc-controller-snapshot: Sources/CollectionController/Relation/RelationController.swift
    let content = albums.snapshot
    var snapshot = NSDiffableDataSourceSnapshot<Int, ObjectIdentifier>()  // UIKit's
    snapshot.appendSections(content.sectionIdentifiers)
    for (section, items) in zip(content.sectionIdentifiers, content.itemIdentifiers) {
      snapshot.appendItems(items, toSection: section)
    }
    // end snippet
    #expect(snapshot.failures.isEmpty)
    #expect(snapshot.sectionIdentifiers == [1950, 1970, 1980])
    #expect(snapshot.itemIdentifiers(inSection: 1980) == [ObjectIdentifier(artist.albums[5])])
    #expect(snapshot.numberOfItems == 6)
  }

  @Test func sectionsAndTheirNames() throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(
      \.albums, of: artist, sectionedBy: { $0.decade }, sectionName: { "\($0)s" })
    // snippet cc-controller-sections: Sources/CollectionController/Relation/RelationController.swift
    let names = albums.sections.map { $0.name }
    // end snippet
    // snippet cc-controller-section-at: Sources/CollectionController/Relation/RelationController.swift
    let first = albums.section(at: 0)
    // end snippet
    #expect(names == ["1950s", "1970s", "1980s"])
    #expect(first.key == 1950 && first.name == "1950s" && first.count == 3)
  }

  /// `numberOfObjects(inSection:)` answers a table view's data source (`AlbumTitles`), whose
  /// table then shows every row.
  @MainActor @Test func aDataSourceCountsTheRowsOfEachSection() throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(\.albums, of: artist, sectionedBy: { $0.decade })
    let dataSource = AlbumTitles(albums: albums)
    let tableView = Self.tableView(showing: dataSource)
    #expect(tableView.shownContent.map(\.rows.count) == [3, 2, 1])
    #expect(tableView.shownContent == Self.content(of: albums))
  }

  @Test func anObjectAtAPositionAndThePositionOfAnObject() throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(
      \.albums, of: artist, filter: .matching { !$0.isLive }, sectionedBy: { $0.decade })
    do {
      // snippet cc-controller-object-at: Sources/CollectionController/Relation/RelationController.swift
      let album = albums.object(at: RowPosition(section: 0, row: 2))
      // end snippet
      #expect(album.title == "Kind of Blue")
    }
    let lines = Self.printed {
      for album in [artist.albums[3], artist.albums[4]] {  // Bitches Brew; Live-Evil, not shown
        // snippet cc-controller-position-of: Sources/CollectionController/Relation/RelationController.swift
        if let position = albums.position(of: album) {
          print("row \(position.row) of section \(position.section)")
        }
        // end snippet
      }
    }
    #expect(lines == ["row 0 of section 1"])
  }

  @Test func aControllerInSectionsAsCreated() throws {
    let artist = Self.sampleArtist()
    // snippet cc-controller-init-sections: Sources/CollectionController/Relation/RelationController+Creation.swift
    let albums = try RelationController(
      \.albums, of: artist, filter: .matching { !$0.isLive },
      sortedBy: [SortDescriptor(\.releaseDate)], sectionedBy: { $0.decade },
      sectionName: { "\($0)s" }, observing: [\.title])
    // end snippet
    #expect(albums.sections.map(\.name) == ["1950s", "1970s", "1980s"])
    #expect(albums.count == 5)
    var updates: [RowPosition] = []
    let token = albums.onChange { updates += $0.updatedRows }
    artist.albums[5].title = "Tutu (Deluxe Edition)"  // observed: an update
    #expect(updates == [RowPosition(section: 2, row: 0)])
    withExtendedLifetime(token) {}
  }

  @Test func controllersInOneSection() throws {
    let artist = Self.sampleArtist()
    artist.albums.reverse()
    let photo = Photo([Tag("jazz", isPublic: true), Tag("draft", isPublic: false)])
    // snippet cc-controller-init-unsectioned: Sources/CollectionController/Relation/RelationController+Creation.swift
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.releaseDate)])
    let tags = try RelationController(
      \.tags, of: photo, filter: .matching(#Predicate { $0.isPublic }))
    // end snippet
    #expect(albums.numberOfSections == 1)
    #expect(albums.objects.map(\.year) == [1957, 1958, 1959, 1970, 1971, 1986])
    #expect(tags.objects.map(\.name) == ["jazz"])
  }

  /// A predicate that throws for a current element is a configuration error, and the
  /// controller stays as it was.
  @Test func aConfigurationErrorSaysWhatWentWrong() throws {
    let artist = Self.sampleArtist()
    artist.albums[0].label = Label("EMI")  // the others have no label: `label!` throws
    let albums = try RelationController(\.albums, of: artist)
    let lines = Self.printed {
      // snippet cc-controller-configuration-error: Sources/CollectionController/Relation/RelationController+Creation.swift
      do {
        try albums.reconfigure { $0.filter = .init(#Predicate { $0.label!.name == "EMI" }) }
      } catch {
        print(error)  // says which element made the predicate throw, and why
      }
      // end snippet
    }
    #expect(lines.count == 1)
    #expect(lines.first?.contains("the filter predicate threw") == true)
    #expect(lines.first?.contains("the element Milestones") == true)
    #expect(albums.count == 6)
  }
}

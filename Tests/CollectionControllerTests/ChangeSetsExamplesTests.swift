import Binding
import CollectionController
import Foundation
import TestSupport
import Testing

// The examples of the ChangeSets article (CollectionController/ChangeSets.md), as the article
// shows them (`DocumentationSnippetTests` fails when an article's block and its region differ),
// compiled, run and checked against what their comments claim. The UIKit examples run against
// the stand-ins of Support/ (a model of UITableView's batch updates, which the collection view
// stand-in uses too); the article's UITableView function is TableViewExamplesTests.swift's
// `applyBatchUpdates(_:to:)`.

// snippet changesets-members: CollectionController/ChangeSets.md
protocol RelationChangeSetMembers {
  associatedtype Element
  associatedtype Move: MoveMembers

  var deletedSections: IndexSet { get }  // old indexes
  var insertedSections: IndexSet { get }  // new indexes
  var deletedRows: [RowPosition] { get }  // old positions
  var insertedRows: [RowPosition] { get }  // new positions
  var movedRows: [Move] { get }  // old → new
  var updatedRows: [RowPosition] { get }  // old positions

  // The elements, parallel to each list above.
  var deletedSectionElements: [[Element]] { get }
  var insertedSectionElements: [[Element]] { get }
  var deletedElements: [Element] { get }
  var insertedElements: [Element] { get }
  var movedElements: [Element] { get }
  var updatedElements: [Element] { get }

  // New indexes of surviving sections whose name changed: reload their headers.
  var renamedSections: IndexSet { get }

  func apply(to sections: inout [[Element]])
  func apply<T>(to sections: inout [[T]], transform: (Element) -> T)
  func collectionDifference() -> CollectionDifference<Element>?
}

protocol MoveMembers {
  var from: RowPosition { get }  // old position
  var to: RowPosition { get }  // new position
  var changed: Bool { get }  // whether the element changed too
}

extension RelationChangeSet: RelationChangeSetMembers {}
extension RelationChangeSet.Move: MoveMembers {}
// end snippet

/// The article's UICollectionView example, with the change set and the view it names.
@MainActor
private func applyToCollectionView(
  _ changes: RelationChangeSet<Album>, _ collectionView: UICollectionView
) {
  // snippet changesets-collection-view: CollectionController/ChangeSets.md
  collectionView.performBatchUpdates {
    collectionView.deleteSections(changes.deletedSections)
    collectionView.insertSections(changes.insertedSections)
    collectionView.deleteItems(at: changes.deletedRows.map(IndexPath.init))
    collectionView.insertItems(at: changes.insertedRows.map(IndexPath.init))
    for move in changes.movedRows {
      collectionView.moveItem(at: IndexPath(move.from), to: IndexPath(move.to))
    }
    collectionView.reloadItems(at: changes.updatedRows.map(IndexPath.init))
  }
  collectionView.reconfigureItems(at: changes.movedRows.filter(\.changed).map { IndexPath($0.to) })
  collectionView.reloadSections(changes.renamedSections)
  // end snippet
}

@Suite struct ChangeSetsExamplesTests {}

/// Seeded random edits of an artist's albums: what a screen does to a relation and its elements,
/// in single writes and in coalesced blocks, with the sections' names reconfigured now and then.
@MainActor
private struct RandomEdits {
  let artist: Artist
  let albums: RelationController<Album, Int>
  var random: SplitMix64
  var made = 0
  var renamed = false

  init(artist: Artist, albums: RelationController<Album, Int>, seed: UInt64) {
    self.artist = artist
    self.albums = albums
    random = SplitMix64(seed: seed)
  }

  mutating func year() -> Int { 1950 + Int(random.next() % 60) }

  mutating func someAlbum() -> Album? {
    artist.albums.isEmpty ? nil : artist.albums[Int(random.next() % UInt64(artist.albums.count))]
  }

  mutating func edit() {
    made += 1
    switch random.next() % 6 {
    case 0: if let album = someAlbum() { _ = artist.remove(album, from: \.albums) }
    case 1: if let album = someAlbum() { album.year = year() }
    case 2: if let album = someAlbum() { album.title = "t\(made)" }
    case 3: if let album = someAlbum() { album.isLive.toggle() }
    default: artist.albums.append(Album("a\(made)", year: year(), title: "t\(made)"))
    }
  }

  /// One transaction: an edit, a block of a few, or a renaming of the sections.
  mutating func transaction() throws {
    switch random.next() % 10 {
    case 0..<6:
      edit()
    case 6..<9:
      let count = 2 + random.next() % 4
      coalesce {
        for _ in 0..<count { edit() }
      }
    default:
      renamed.toggle()
      let renamed = renamed
      try albums.reconfigure { configuration in
        configuration.sectionName = { renamed ? "the \($0)s" : "\($0)s" }
      }
    }
  }
}

/// Fifteen albums of random years, and a controller of them by decade, as the article's
/// examples use it.
@MainActor
private func albumsByDecade(seed: UInt64) throws -> (Artist, RelationController<Album, Int>) {
  var random = SplitMix64(seed: seed &+ 1000)
  let artist = Artist(
    (0..<15).map { Album("s\($0)", year: 1950 + Int(random.next() % 60), title: "s\($0)") })
  let albums = try RelationController(
    \.albums, of: artist, filter: .matching { !$0.isLive }, sortedBy: [SortDescriptor(\.year)],
    sectionedBy: { $0.decade }, observing: [\.title])
  return (artist, albums)
}

extension ChangeSetsExamplesTests {
  /// The example of one section: the change set the article prints, and the new content.
  @Test func theExampleWithoutSections() throws {
    let (a, b, c, d) = (
      Album("a", year: 1), Album("b", year: 2), Album("c", year: 3), Album("d", year: 4)
    )
    let artist = Artist([a, b, c, d])
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], observing: [\.title])
    var received: [String] = []
    let token = albums.onChange { received.append("\($0)") }
    // snippet changesets-example: CollectionController/ChangeSets.md
    coalesce {
      artist.remove(at: 1, from: \.albums)  // b leaves
      artist.albums.append(Album("e", year: 0))  // e arrives, sorts first
      c.year = 5  // c's sort key changes: it moves to the end
      d.title = "d!"  // d's observed attribute changes
    }
    // ChangeSet(-rows: [0, 1]; +rows: [0, 0]; moves: [0, 2]->[0, 3]*; updates: [0, 3])
    // new content: e a d c
    // end snippet
    #expect(
      received == [
        "ChangeSet(-rows: [0, 1]; +rows: [0, 0]; moves: [0, 2]->[0, 3]*; updates: [0, 3])"
      ]
    )
    #expect(albums.names() == [["e", "a", "d", "c"]])
    token.cancel()
  }

  /// The example with sections.
  @Test func theExampleWithSections() throws {
    let (x, y, z) = (Album("x", year: 1995), Album("y", year: 2001), Album("z", year: 2003))
    let artist = Artist([x, y, z])
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.decade })
    var received: [RelationChangeSet<Album>] = []
    let token = albums.onChange { received.append($0) }
    // snippet changesets-sections-example: CollectionController/ChangeSets.md
    coalesce {
      x.year = 2005  // x leaves the 1990s for the 2000s
      artist.albums.append(Album("w", year: 2012))  // w arrives, in a new section
    }
    // ChangeSet(-sections: 0; +sections: 1; +rows: [0, 2])
    // new content: [y z x] [w]
    // end snippet
    #expect(received.map(\.description) == ["ChangeSet(-sections: 0; +sections: 1; +rows: [0, 2])"])
    #expect(received.first?.insertedSectionElements.map { $0.map(\.name) } == [["w"]])
    #expect(albums.names() == [["y", "z", "x"], ["w"]])
    token.cancel()
  }

  /// The UICollectionView example, through seeded random edits: after every change set the
  /// collection view shows what its data source gives now, and nothing UIKit would raise for
  /// happened.
  @MainActor @Test(arguments: 0..<4 as Range<UInt64>)
  func aCollectionViewFollowsRandomEdits(seed: UInt64) throws {
    let (artist, albums) = try albumsByDecade(seed: seed)
    let dataSource = AlbumsDataSource(albums: albums)
    let collectionView = UICollectionView()
    collectionView.model.register(UITableViewCell.self, forCellReuseIdentifier: "album")
    collectionView.model.dataSource = dataSource
    collectionView.model.layoutIfNeeded()
    var delivered = 0
    let token = albums.onChange { changes in
      delivered += 1
      applyToCollectionView(changes, collectionView)
    }
    var edits = RandomEdits(artist: artist, albums: albums, seed: seed)
    for step in 0..<200 {
      try edits.transaction()
      let expected = albums.sections.map {
        UITableView.ShownContent(header: $0.name, rows: $0.objects.map(\.title))
      }
      let view = collectionView.model
      guard view.failures.isEmpty, view.shownContent == expected else {
        let failure =
          "seed \(seed), step \(step): \(view.failures)\nshows  \(view.shownContent)"
          + "\nwanted \(expected)"
        Issue.record("\(failure)")
        break
      }
    }
    #expect(delivered > 100)
    token.cancel()
    withExtendedLifetime(dataSource) {}  // the view holds its data source weakly
  }

  /// The diffable data source example, in the handler of a controller: after every change set
  /// the table shows the rows the controller gives, each configured with its current title.
  @MainActor @Test(arguments: 0..<4 as Range<UInt64>)
  func aDiffableDataSourceFollowsRandomEdits(seed: UInt64) throws {
    let (artist, albums) = try albumsByDecade(seed: seed)
    let tableView = UITableView()
    tableView.register(UITableViewCell.self, forCellReuseIdentifier: "album")
    let dataSource = UITableViewDiffableDataSource<Int, ObjectIdentifier>(tableView: tableView) {
      tableView, indexPath, _ in
      let cell = tableView.dequeueReusableCell(withIdentifier: "album", for: indexPath)
      var content = cell.defaultContentConfiguration()
      content.text = albums.object(at: RowPosition(indexPath)).title
      cell.contentConfiguration = content
      return cell
    }
    let current = albums.snapshot
    var initial = NSDiffableDataSourceSnapshot<Int, ObjectIdentifier>()
    initial.appendSections(current.sectionIdentifiers)
    for (section, items) in zip(current.sectionIdentifiers, current.itemIdentifiers) {
      initial.appendItems(items, toSection: section)
    }
    dataSource.apply(initial, animatingDifferences: false)
    let token = albums.onChange { changes in
      // snippet changesets-diffable: CollectionController/ChangeSets.md
      let content = albums.snapshot  // section keys, and the elements' ObjectIdentifiers
      var snapshot = NSDiffableDataSourceSnapshot<Int, ObjectIdentifier>()
      snapshot.appendSections(content.sectionIdentifiers)
      for (section, items) in zip(content.sectionIdentifiers, content.itemIdentifiers) {
        snapshot.appendItems(items, toSection: section)
      }
      let changed =
        changes.updatedElements + changes.insertedElements
        + changes.insertedSectionElements.joined()
        + zip(changes.movedRows, changes.movedElements).filter { $0.0.changed }.map(\.1)
      snapshot.reconfigureItems(changed.map(ObjectIdentifier.init))
      snapshot.reloadSections(changes.renamedSections.map { snapshot.sectionIdentifiers[$0] })
      dataSource.apply(snapshot, animatingDifferences: true)
      // end snippet
    }
    var edits = RandomEdits(artist: artist, albums: albums, seed: seed)
    for step in 0..<200 {
      try edits.transaction()
      let expected = albums.sections.map {
        UITableView.ShownContent(header: nil, rows: $0.objects.map(\.title))
      }
      guard tableView.failures.isEmpty, tableView.shownContent == expected else {
        let failure =
          "seed \(seed), step \(step): \(tableView.failures)\nshows  \(tableView.shownContent)"
          + "\nwanted \(expected)"
        Issue.record("\(failure)")
        break
      }
    }
    #expect(tableView.batchCount > 100)
    token.cancel()
  }

  /// The CollectionDifference example, on a controller of one section: the copy follows the
  /// controller's content through seeded random edits.
  @Test(arguments: 0..<4 as Range<UInt64>)
  func aCollectionDifferenceKeepsACopy(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let artist = Artist((0..<10).map { Album("s\($0)", year: Int(random.next() % 20)) })
    let albums = try RelationController(
      \.albums, of: artist, filter: .matching { !$0.isLive }, sortedBy: [SortDescriptor(\.year)])
    // snippet changesets-collection-difference: CollectionController/ChangeSets.md
    var shown = albums.objects
    let token = albums.onChange { changes in  // keep the token
      if let difference = changes.collectionDifference() {
        shown = shown.applying(difference)!  // nil only if `shown` is not the previous content
      }
    }
    // end snippet
    for step in 0..<200 {
      let album = artist.albums.randomElement(using: &random)
      switch random.next() % 4 {
      case 0: album?.year = Int(random.next() % 20)
      case 1: album?.isLive.toggle()
      case 2: if let album { _ = artist.remove(album, from: \.albums) }
      default: artist.albums.append(Album("a\(step)", year: Int(random.next() % 20)))
      }
      guard shown == albums.objects else {
        Issue.record("seed \(seed), step \(step): \(shown) != \(albums.objects)")
        break
      }
    }
    token.cancel()
  }

  /// The example of a consumer of the asynchronous sequence that keeps its own rows: in step
  /// with the controller, each printed copy is the content after that change set; lagging
  /// behind a burst of edits, the last one is the content after the last.
  @MainActor @Test func aConsumerOfTheSequenceKeepsItsOwnRows() async throws {
    let printed = _Lock<[String]>([])
    @Sendable func print(_ items: Any..., separator: String = " ") {
      let line = items.map { "\($0)" }.joined(separator: separator)
      printed.withLock { $0.append(line) }
    }
    let (artist, albums) = try albumsByDecade(seed: 7)
    var contents: [String] = []  // the content after each change set, as printed
    let token = albums.onChange { _ in
      contents.append("\(albums.sections.map { $0.objects.map(\.title) })")
    }
    let consumer = Task {
      // snippet changesets-own-arrays: CollectionController/ChangeSets.md
      struct AlbumRow {
        var title: String
        init(_ album: Album) { title = album.title }
      }

      var rows = albums.sections.map { $0.objects.map(AlbumRow.init) }
      for await changes in albums.changes {
        changes.apply(to: &rows, transform: AlbumRow.init)
        print(rows.map { $0.map(\.title) })  // or draw them
      }
      // end snippet
    }
    await Task.yield()  // the consumer starts iterating (the main actor runs it first)
    /// Waits until the consumer has printed a copy for each change set.
    func consumerCaughtUp() async -> Bool {
      let deadline = ContinuousClock.now.advanced(by: .seconds(20))
      while printed.withLock({ $0.count }) < contents.count {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(1))
      }
      return true
    }
    var edits = RandomEdits(artist: artist, albums: albums, seed: 7)
    for _ in 0..<40 {
      try edits.transaction()
      #expect(await consumerCaughtUp())
    }
    #expect(contents.count > 20)
    #expect(printed.withLock { $0 } == contents)
    for _ in 0..<40 { try edits.transaction() }  // a burst: the content runs ahead
    #expect(await consumerCaughtUp())
    #expect(printed.withLock { $0.count } == contents.count)
    #expect(printed.withLock { $0.last } == contents.last)
    consumer.cancel()
    await consumer.value
    token.cancel()
  }
}

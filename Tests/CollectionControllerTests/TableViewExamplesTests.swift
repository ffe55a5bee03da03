import Binding
import CollectionController
import Foundation
import Observation
import TestSupport
import Testing

// The documentation's UIKit and SwiftUI examples, compiled against the stand-ins in
// Support/BatchUpdateTableModel.swift and Support/SwiftUIStandIns.swift, and run. Each region
// between `// snippet NAME: DOCS` and `// end snippet` is shown, line for line, in the listed
// documents (README.md, or MODULE/ARTICLE.md for Sources/MODULE/MODULE.docc/ARTICLE.md), as a
// ```swift block, whose leading `import` lines are the document's own;
// `DocumentationSnippetTests` fails when the two differ. Change them together.

// snippet table-data-source: CollectionController/GettingStarted.md
@MainActor
final class AlbumsDataSource: NSObject, UITableViewDataSource {
  let albums: RelationController<Album, Int>

  init(albums: RelationController<Album, Int>) {
    self.albums = albums
  }

  func numberOfSections(in tableView: UITableView) -> Int {
    albums.numberOfSections
  }

  func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {
    albums.numberOfObjects(inSection: section)
  }

  func tableView(_ tableView: UITableView, titleForHeaderInSection section: Int) -> String? {
    albums.section(at: section).name
  }

  func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
    let album = albums.object(at: RowPosition(indexPath))  // O(log n)
    let cell = tableView.dequeueReusableCell(withIdentifier: "album", for: indexPath)
    var content = cell.defaultContentConfiguration()
    content.text = album.title
    cell.contentConfiguration = content
    return cell
  }
}
// end snippet

// snippet table-batch-updates: CollectionController/GettingStarted.md, README.md,
// CollectionController/ChangeSets.md
@MainActor
func applyBatchUpdates(_ changes: RelationChangeSet<Album>, to tableView: UITableView) {
  tableView.performBatchUpdates {
    // Old positions: deleted sections and rows, move sources, reloaded rows.
    // New positions: inserted sections and rows, move destinations.
    tableView.deleteSections(changes.deletedSections, with: .automatic)
    tableView.insertSections(changes.insertedSections, with: .automatic)  // rows and all
    tableView.deleteRows(at: changes.deletedRows.map(IndexPath.init), with: .automatic)
    tableView.insertRows(at: changes.insertedRows.map(IndexPath.init), with: .automatic)
    for move in changes.movedRows {
      tableView.moveRow(at: IndexPath(move.from), to: IndexPath(move.to))
    }
    tableView.reloadRows(at: changes.updatedRows.map(IndexPath.init), with: .automatic)
  }
  // After the batch, at new positions: rows that moved and changed, renamed sections.
  tableView.reconfigureRows(at: changes.movedRows.filter(\.changed).map { IndexPath($0.to) })
  tableView.reloadSections(changes.renamedSections, with: .none)
}
// end snippet

// snippet table-change-sets: CollectionController/GettingStarted.md
@MainActor
final class AlbumsTable {
  let dataSource: AlbumsDataSource  // a table view holds its data source weakly
  let token: ObservationToken  // released, it ends the handler

  init(albums: RelationController<Album, Int>, tableView: UITableView) {
    dataSource = AlbumsDataSource(albums: albums)
    tableView.register(UITableViewCell.self, forCellReuseIdentifier: "album")
    tableView.dataSource = dataSource
    token = albums.onChange { (changes: RelationChangeSet<Album>) in
      applyBatchUpdates(changes, to: tableView)
    }
  }
}
// end snippet

// snippet table-delegate: CollectionController/GettingStarted.md
@MainActor
final class AlbumsTableDelegate {
  let tableView: UITableView
  let dataSource: AlbumsDataSource

  init(albums: RelationController<Album, Int>, tableView: UITableView) {
    self.tableView = tableView
    dataSource = AlbumsDataSource(albums: albums)
    tableView.register(UITableViewCell.self, forCellReuseIdentifier: "album")
    tableView.dataSource = dataSource
    albums.delegate = self  // held weakly
  }
}

extension AlbumsTableDelegate: @MainActor RelationControllerDelegate {
  func relationControllerWillChangeContent(_ controller: RelationController<Album, Int>) {
    tableView.beginUpdates()
  }

  func relationController(
    _ controller: RelationController<Album, Int>,
    didChange section: RelationController<Album, Int>.Section,
    atSectionIndex index: Int, for type: RelationChangeType
  ) {
    switch type {
    case .insert: tableView.insertSections([index], with: .automatic)  // rows and all
    case .delete: tableView.deleteSections([index], with: .automatic)
    case .update, .move: break  // renamed: its header is reloaded after the batch
    }
  }

  func relationController(
    _ controller: RelationController<Album, Int>, didChange album: Album,
    at position: RowPosition?, for type: RelationChangeType, newPosition: RowPosition?
  ) {
    switch (type, position, newPosition) {
    case (.insert, _, let new?):
      tableView.insertRows(at: [IndexPath(new)], with: .automatic)
    case (.delete, let old?, _):
      tableView.deleteRows(at: [IndexPath(old)], with: .automatic)
    case (.move, let old?, let new?):
      tableView.moveRow(at: IndexPath(old), to: IndexPath(new))
    case (.update, let old?, _):
      tableView.reloadRows(at: [IndexPath(old)], with: .automatic)
    default:
      break
    }
  }

  func relationController(
    _ controller: RelationController<Album, Int>,
    didChangeContent changes: RelationChangeSet<Album>
  ) {
    tableView.endUpdates()
    tableView.reconfigureRows(at: changes.movedRows.filter(\.changed).map { IndexPath($0.to) })
    tableView.reloadSections(changes.renamedSections, with: .none)
  }
}
// end snippet

// snippet table-diffable: CollectionController/GettingStarted.md
@MainActor
final class AlbumsDiffableTable {
  let albums: RelationController<Album, Int>
  let dataSource: UITableViewDiffableDataSource<Int, ObjectIdentifier>
  var token: ObservationToken?

  init(albums: RelationController<Album, Int>, tableView: UITableView) {
    self.albums = albums
    tableView.register(UITableViewCell.self, forCellReuseIdentifier: "album")
    dataSource = UITableViewDiffableDataSource(tableView: tableView) { tableView, indexPath, _ in
      let album = albums.object(at: RowPosition(indexPath))  // the snapshot's content
      let cell = tableView.dequeueReusableCell(withIdentifier: "album", for: indexPath)
      var content = cell.defaultContentConfiguration()
      content.text = album.title
      cell.contentConfiguration = content
      return cell
    }
    dataSource.apply(currentSnapshot(), animatingDifferences: false)
    token = albums.onChange { [weak self] (changes: RelationChangeSet<Album>) in
      self?.apply(changes)
    }
  }

  func currentSnapshot() -> NSDiffableDataSourceSnapshot<Int, ObjectIdentifier> {
    let content = albums.snapshot  // section keys, and the elements' ObjectIdentifiers
    var snapshot = NSDiffableDataSourceSnapshot<Int, ObjectIdentifier>()
    snapshot.appendSections(content.sectionIdentifiers)
    for (section, items) in zip(content.sectionIdentifiers, content.itemIdentifiers) {
      snapshot.appendItems(items, toSection: section)
    }
    return snapshot
  }

  func apply(_ changes: RelationChangeSet<Album>) {
    var snapshot = currentSnapshot()
    // A diffable data source finds insertions, deletions and moves itself. Tell it which
    // items to configure again: updated ones, moves that changed, and insertions (an element
    // that enters a new section or leaves a deleted one is an insertion, and may have changed:
    // the data source sees the same item move).
    let changed =
      changes.updatedElements + changes.insertedElements
      + changes.insertedSectionElements.joined()
      + zip(changes.movedRows, changes.movedElements).filter { $0.0.changed }.map(\.1)
    snapshot.reconfigureItems(changed.map(ObjectIdentifier.init))
    snapshot.reloadSections(changes.renamedSections.map { snapshot.sectionIdentifiers[$0] })
    dataSource.apply(snapshot, animatingDifferences: true)
  }
}
// end snippet

// snippet unsectioned-delegate: CollectionController/GettingStarted.md
final class AlbumsLog: RelationControllerDelegate {
  var changes: [RelationChangeSet<Album>] = []

  func relationController(
    _ controller: RelationController<Album, Unsectioned>,
    didChangeContent changes: RelationChangeSet<Album>
  ) {
    self.changes.append(changes)
  }
}
// end snippet

// snippet swiftui-list: CollectionController/GettingStarted.md, README.md
extension Album: Identifiable {}  // a class: its identity is its id

struct AlbumsView: View {
  let albums: RelationController<Album, Int>  // made on the main actor: delivers there

  var body: some View {
    List(albums.sections, id: \.key) { section in
      Section(section.name) {
        ForEach(section.objects) { album in
          Text(album.title)
        }
      }
    }
  }
}
// end snippet

@Suite struct TableViewExamplesTests {}

/// The edits of the randomized test: what a user's screen does to the relation and its albums.
@MainActor
private struct Editor {
  let artist: Artist
  let albums: RelationController<Album, Int>
  var random: SplitMix64
  var made = 0
  var renamed = false

  mutating func newAlbum() -> Album {
    made += 1
    let year = 1950 + Int(random.next() % 80)  // eight decades: sections come and go
    return Album("a\(made)", year: year, title: "t\(made)", isLive: random.next() % 8 == 0)
  }

  mutating func randomAlbum() -> Album? {
    artist.albums.isEmpty ? nil : artist.albums[Int(random.next() % UInt64(artist.albums.count))]
  }

  /// One write (or one fine-grained edit) of the relation or an album.
  mutating func singleEdit() {
    let count = artist.albums.count
    switch random.next() % (count > 30 ? 5 : 7) {
    case 0:
      if let album = randomAlbum() { _ = artist.remove(album, from: \.albums) }
    case 1:
      if let album = randomAlbum() { album.year = 1950 + Int(random.next() % 80) }
    case 2:
      made += 1
      if let album = randomAlbum() { album.title = "t\(made)" }  // titles stay unique
    case 3:
      if let album = randomAlbum() { album.isLive.toggle() }
    case 4:
      if count > 1 {  // ties of the year keep the relation's order: this moves rows too
        let from = Int(random.next() % UInt64(count))
        let to = Int(random.next() % UInt64(count))
        artist.apply(.move(from: from, to: to), to: \.albums)
      }
    case 5:
      let album = newAlbum()
      artist.insert(album, at: Int(random.next() % UInt64(count + 1)), into: \.albums)
    default:
      artist.albums.append(newAlbum())
    }
  }

  /// A random transaction: one edit, a coalesced block of several, a replacement of the whole
  /// relation, or a reconfiguration.
  mutating func transaction() throws {
    switch random.next() % 20 {
    case 0..<12:
      singleEdit()
    case 12..<17:
      let edits = 2 + random.next() % 5
      coalesce {
        for _ in 0..<edits { singleEdit() }
      }
    case 17, 18:
      var next = artist.albums.filter { _ in random.next() % 4 != 0 }
      for _ in 0..<random.next() % 4 { next.append(newAlbum()) }
      next.shuffle(using: &random)
      artist.albums = next
    default:
      renamed.toggle()
      let renamed = renamed
      let sortByTitle = random.next() % 2 == 0
      try albums.reconfigure { configuration in
        configuration.sectionName = { renamed ? "the \($0)s" : "\($0)s" }
        configuration.sortedBy =
          sortByTitle ? [SortDescriptor(\.title)] : [SortDescriptor(\.year)]
      }
    }
  }
}

extension TableViewExamplesTests {
  /// The documentation's three ways of driving a table view (change sets in
  /// `performBatchUpdates`, the delegate, a diffable data source), each on its own table view
  /// of the same controller, through seeded random edits: after every change set each table
  /// shows exactly what its data source gives now (every cell where it belongs, none stale, the
  /// headers renamed), and the table view model found nothing UIKit would raise for.
  @MainActor @Test(arguments: 0..<6 as Range<UInt64>)
  func everyTableFollowsRandomEdits(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let artist = Artist()
    for index in 0..<15 {
      artist.albums.append(
        Album("s\(index)", year: 1950 + Int(random.next() % 80), title: "s\(index)"))
    }
    // snippet readme-controller: README.md
    let albums: RelationController<Album, Int> = try RelationController(
      \.albums, of: artist,
      filter: .matching { !$0.isLive },  // or .matching(#Predicate<Album> { ... })
      sortedBy: [SortDescriptor(\.year)],  // stable: ties keep the relation's order
      sectionedBy: { $0.decade },  // any Hashable & Comparable key
      sectionName: { "\($0)s" },  // the sections' display names
      observing: [\.title])  // attributes whose change is an update
    // end snippet
    let batchView = UITableView()
    let batchTable = AlbumsTable(albums: albums, tableView: batchView)
    batchView.layoutIfNeeded()
    let delegateView = UITableView()
    let delegateTable = AlbumsTableDelegate(albums: albums, tableView: delegateView)
    delegateView.layoutIfNeeded()
    let diffableView = UITableView()
    let diffableTable = AlbumsDiffableTable(albums: albums, tableView: diffableView)

    var kinds: Set<String> = []
    let census = albums.onChange { changes in
      if !changes.insertedSections.isEmpty { kinds.insert("inserted section") }
      if !changes.deletedSections.isEmpty { kinds.insert("deleted section") }
      if !changes.renamedSections.isEmpty { kinds.insert("renamed section") }
      if changes.movedRows.contains(where: \.changed) { kinds.insert("changed move") }
      if !changes.movedRows.isEmpty { kinds.insert("move") }
      if !changes.updatedRows.isEmpty { kinds.insert("update") }
    }
    var editor = Editor(artist: artist, albums: albums, random: random)
    var failure: String?
    var delivered = 0
    for step in 0..<250 where failure == nil {
      let before = batchView.batchCount
      try editor.transaction()
      if batchView.batchCount == before { continue }  // nothing visible changed
      delivered += 1
      let expected = albums.sections.map {
        UITableView.ShownContent(header: $0.name, rows: $0.objects.map(\.title))
      }
      let rowsOnly = expected.map { UITableView.ShownContent(header: nil, rows: $0.rows) }
      for (name, view, wanted) in [
        ("performBatchUpdates", batchView, expected), ("delegate", delegateView, expected),
        ("diffable", diffableView, rowsOnly),
      ] {
        if !view.failures.isEmpty || view.shownContent != wanted {
          failure =
            "seed \(seed), step \(step), \(name): \(view.failures)\nshows  \(view.shownContent)"
            + "\nwanted \(wanted)"
          break
        }
      }
    }
    #expect(failure == nil, "\(failure ?? "")")
    #expect(delivered > 100)
    #expect(delegateView.batchCount == delivered && diffableView.batchCount == delivered + 1)
    #expect(
      kinds == [
        "inserted section", "deleted section", "renamed section", "changed move", "move",
        "update",
      ])
    withExtendedLifetime((batchTable, delegateTable, diffableTable, census)) {}
  }

  /// Issue 31: a change set's inserted section carries no row insertions (as in UIKit): the
  /// table reads the section's rows from its data source. An applier that also inserts the
  /// section's rows is what UIKit rejects, and so does the table view model.
  @MainActor @Test func anInsertedSectionBringsItsRowsFromTheDataSource() throws {
    let artist = Artist([Album("a", year: 1959, title: "Kind of Blue")])
    let albums = try RelationController(\.albums, of: artist, sectionedBy: { $0.decade })
    let view = UITableView()
    let table = AlbumsTable(albums: albums, tableView: view)
    view.layoutIfNeeded()
    let naiveView = UITableView()
    naiveView.register(UITableViewCell.self, forCellReuseIdentifier: "album")
    naiveView.dataSource = table.dataSource
    naiveView.layoutIfNeeded()
    var received: [RelationChangeSet<Album>] = []
    let token = albums.onChange { changes in
      received.append(changes)
      // The user's applier of issue 31: it inserts a row for each element of a new section.
      naiveView.performBatchUpdates {
        naiveView.insertSections(changes.insertedSections, with: .automatic)
        for (section, elements) in zip(changes.insertedSections, changes.insertedSectionElements) {
          naiveView.insertRows(
            at: elements.indices.map { IndexPath(RowPosition(section: section, row: $0)) },
            with: .automatic)
        }
      }
    }

    coalesce {
      artist.albums.append(Album("b", year: 1986, title: "Tutu"))
      artist.albums.append(Album("c", year: 1981, title: "The Man with the Horn"))
    }
    let changes = try #require(received.first)
    #expect(Array(changes.insertedSections) == [1])
    #expect(changes.insertedRows.isEmpty)  // the section brings its rows
    #expect(
      changes.insertedSectionElements.map { $0.map(\.title) } == [
        ["Tutu", "The Man with the Horn"]
      ])
    #expect(view.failures.isEmpty)
    #expect(
      view.shownContent == [
        .init(header: "1950", rows: ["Kind of Blue"]),
        .init(header: "1980", rows: ["Tutu", "The Man with the Horn"]),
      ])
    #expect(naiveView.failures.contains { $0.contains("inside inserted section 1") })
    withExtendedLifetime(token) {}
  }

  /// The table view model rejects what UIKit rejects: a batch whose row counts do not add up
  /// (here, an applier that forgot deletions), and one that names a row twice.
  @MainActor @Test func theTableViewModelRejectsInconsistentBatches() throws {
    let artist = Artist([Album("a", year: 1990, title: "x"), Album("b", year: 1991, title: "y")])
    let albums = try RelationController(\.albums, of: artist, sectionedBy: { $0.decade })
    let dataSource = AlbumsDataSource(albums: albums)
    let view = UITableView()
    view.register(UITableViewCell.self, forCellReuseIdentifier: "album")
    view.dataSource = dataSource
    view.layoutIfNeeded()
    _ = artist.remove(at: 0, from: \.albums)
    view.performBatchUpdates {}  // the deletion is missing
    #expect(view.failures.count == 1)
    #expect(view.failures.first?.contains("invalid number of rows in section 0") == true)
    view.performBatchUpdates {
      view.deleteRows(at: [IndexPath(RowPosition(section: 0, row: 0))], with: .automatic)
      view.reloadRows(at: [IndexPath(RowPosition(section: 0, row: 0))], with: .automatic)
    }
    #expect(view.failures.count == 2)
    #expect(view.failures.last?.contains("more than once") == true)
  }

  /// A delegate of a controller without sections names `Unsectioned` as its section key, and
  /// receives that controller's change sets.
  @Test func anUnsectionedControllersDelegateNamesUnsectioned() throws {
    let artist = Artist([Album("a", year: 1990)])
    let albums = try RelationController(\.albums, of: artist, delivery: .synchronous)
    let log = AlbumsLog()
    albums.delegate = log
    artist.albums.append(Album("b", year: 1991))
    #expect(log.changes.count == 1)
    #expect(log.changes.first?.insertedRows == [RowPosition(section: 0, row: 1)])
  }

  /// The SwiftUI example: rendering the view reads the controller, Swift Observation tells
  /// when a change set changed the content, and rendering again shows it.
  @MainActor @Test func theSwiftUIListShowsTheContentAfterEachChangeSet() throws {
    let artist = Artist([Album("a", year: 1959, title: "Kind of Blue")])
    let albums = try RelationController(
      \.albums, of: artist, sectionedBy: { $0.decade }, sectionName: { "\($0)s" })
    let view = AlbumsView(albums: albums)
    let changed = _Lock(false)
    let first = withObservationTracking {
      render(view)
    } onChange: {
      changed.withLock { $0 = true }
    }
    #expect(first == ["1950s", "  Kind of Blue"])
    artist.albums.append(Album("b", year: 1986, title: "Tutu"))
    #expect(changed.withLock { $0 })
    #expect(render(view) == ["1950s", "  Kind of Blue", "1980s", "  Tutu"])
  }
}

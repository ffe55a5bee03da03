import Binding
import Foundation
import Testing

@testable import CollectionController

// The examples of the documentation comments of change sets, positions and the ways a
// controller delivers them (see DocCommentExamplesTests.swift). UIKit's table view is the model
// in Support/BatchUpdateTableModel.swift, which records what UIKit would raise for.

/// Prints into the transcript of the test running (see `DocCommentExamplesTests.printed(_:)`).
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
  let line = items.map { "\($0)" }.joined(separator: separator)
  if let transcript = DocCommentExamplesTests.Transcript.current {
    transcript.lines.withLock { $0.append(line) }
  } else {
    Swift.print(line, terminator: terminator)
  }
}

// MARK: - ChangeSet.swift

extension DocCommentExamplesTests {
  /// The change set's example, applied to a table view for each kind of change: a row, a new
  /// section, a move that changed, a deleted section, renamed sections.
  @MainActor @Test func aChangeSetUpdatesATableView() throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.decade },
      sectionName: { "\($0)s" }, observing: [\.title])
    let dataSource = AlbumTitles(albums: albums)
    let tableView = Self.tableView(showing: dataSource)
    var failures: [String] = []
    let token = albums.onChange { changes in
      // snippet cc-change-set: Sources/CollectionController/Engine/ChangeSet.swift
      tableView.performBatchUpdates {
        tableView.deleteSections(changes.deletedSections, with: .automatic)
        tableView.insertSections(changes.insertedSections, with: .automatic)
        tableView.deleteRows(at: changes.deletedRows.map(IndexPath.init), with: .automatic)
        tableView.insertRows(at: changes.insertedRows.map(IndexPath.init), with: .automatic)
        for move in changes.movedRows {
          tableView.moveRow(at: IndexPath(move.from), to: IndexPath(move.to))
        }
        tableView.reloadRows(at: changes.updatedRows.map(IndexPath.init), with: .automatic)
      }
      // Then, at new positions: the cells of moves that changed, the headers of renamed sections.
      tableView.reconfigureRows(at: changes.movedRows.filter(\.changed).map { IndexPath($0.to) })
      tableView.reloadSections(changes.renamedSections, with: .none)
      // end snippet
      if tableView.shownContent != Self.content(of: albums) || !tableView.failures.isEmpty {
        failures.append("\(changes): \(tableView.failures), shows \(tableView.shownContent)")
      }
    }
    var kinds: Set<String> = []
    let census = albums.onChange { changes in
      if !changes.insertedSections.isEmpty { kinds.insert("inserted section") }
      if !changes.deletedSections.isEmpty { kinds.insert("deleted section") }
      if !changes.renamedSections.isEmpty { kinds.insert("renamed section") }
      if changes.movedRows.contains(where: \.changed) { kinds.insert("changed move") }
      if !changes.updatedRows.isEmpty { kinds.insert("update") }
      if !changes.insertedRows.isEmpty { kinds.insert("inserted row") }
    }
    artist.albums.append(Album("Amandla", year: 1989))
    artist.albums.append(Album("Doo-Bop", year: 1992))
    coalesce {
      artist.albums[3].year = 1975  // Bitches Brew moves after Live-Evil
      artist.albums[3].title = "Bitches Brew (Legacy Edition)"
    }
    artist.albums[5].title = "Tutu (Deluxe Edition)"
    _ = artist.remove(at: 0, from: \.albums)
    _ = artist.remove(at: 0, from: \.albums)
    _ = artist.remove(at: 0, from: \.albums)  // the 1950s are gone
    try albums.reconfigure { $0.sectionName = { "the \($0)s" } }
    #expect(failures.isEmpty)
    #expect(
      kinds == [
        "inserted section", "deleted section", "renamed section", "changed move", "update",
        "inserted row",
      ])
    #expect(tableView.shownContent.map(\.header) == ["the 1970s", "the 1980s", "the 1990s"])
    withExtendedLifetime((dataSource, token, census)) {}
  }

  @MainActor @Test func movesAreMovesOfATableView() throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(\.albums, of: artist, sectionedBy: { $0.decade })
    let dataSource = AlbumTitles(albums: albums)
    let tableView = Self.tableView(showing: dataSource)
    var moves = 0
    let token = albums.onChange { changes in
      moves += changes.movedRows.count
      tableView.performBatchUpdates {
        // snippet cc-change-set-move: Sources/CollectionController/Engine/ChangeSet.swift
        for move in changes.movedRows {
          tableView.moveRow(at: IndexPath(move.from), to: IndexPath(move.to))
        }
        // end snippet
      }
    }
    artist.apply(.move(from: 4, to: 3), to: \.albums)  // relation order: Live-Evil comes first
    #expect(moves == 1)
    #expect(tableView.failures.isEmpty)
    #expect(tableView.shownContent == Self.content(of: albums))
    #expect(tableView.shownContent[1].rows == ["Live-Evil", "Bitches Brew"])
    withExtendedLifetime((dataSource, token)) {}
  }

  /// Edits of every kind, for the tests whose example keeps a copy of the content.
  static func edit(_ artist: Artist) {
    artist.albums.append(Album("Amandla", year: 1989))
    artist.albums.append(Album("Doo-Bop", year: 1992))
    artist.albums[1].year = 1972
    artist.albums[2].title = "Kind of Blue (Legacy Edition)"
    _ = artist.remove(at: 0, from: \.albums)
    artist.albums.shuffle()
  }

  @Test func rowsOfOnesOwnFollowTheChanges() async throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.decade },
      observing: [\.title])
    let iteration = Task {
      // snippet cc-change-set-apply-transform: Sources/CollectionController/Engine/ChangeSet.swift
      var rows = albums.sections.map { $0.objects.map(AlbumRow.init) }
      for await changes in albums.changes {
        changes.apply(to: &rows, transform: AlbumRow.init)
      }
      // end snippet
      return rows
    }
    await Self.untilIterating(albums)
    Self.edit(artist)
    iteration.cancel()  // after the change sets it holds: they were all delivered already
    let rows = await iteration.value
    #expect(rows == albums.sections.map { $0.objects.map(AlbumRow.init) })
    #expect(rows.joined().contains(AlbumRow(artist.albums.first { $0.year == 1959 }!)))
  }

  @Test func aCopyOfTheContentFollowsTheChanges() throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.decade })
    // snippet cc-change-set-apply: Sources/CollectionController/Engine/ChangeSet.swift
    var content = albums.sections.map { $0.objects }
    let token = albums.onChange { changes in
      changes.apply(to: &content)  // now content == albums.sections.map { $0.objects }
    }
    // end snippet
    Self.edit(artist)
    #expect(content == albums.sections.map { $0.objects })
    #expect(content.count == 4)
    withExtendedLifetime(token) {}
  }

  @Test func aCollectionDifferenceUpdatesAnArray() throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(\.albums, of: artist, sortedBy: [SortDescriptor(\.year)])
    var applied = 0
    let counter = albums.onChange { _ in applied += 1 }
    // snippet cc-change-set-collection-difference: Sources/CollectionController/Engine/ChangeSet.swift
    var shown = albums.objects  // a controller without sections
    let token = albums.onChange { changes in
      if let difference = changes.collectionDifference(), let next = shown.applying(difference) {
        shown = next  // now shown == albums.objects
      }
    }
    // end snippet
    Self.edit(artist)
    #expect(applied == 4)  // the title is not read: no change set
    #expect(shown == albums.objects)
    withExtendedLifetime((token, counter)) {}
  }
}

// MARK: - Position.swift

extension DocCommentExamplesTests {
  @MainActor @Test func aPositionIsAnIndexPathForUIKit() throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(\.albums, of: artist, sectionedBy: { $0.decade })
    let dataSource = AlbumTitles(albums: albums)
    let tableView = Self.tableView(showing: dataSource)
    artist.albums[2].title = "Kind of Blue (Legacy Edition)"  // the row is not reloaded yet
    // snippet cc-row-position: Sources/CollectionController/Engine/Position.swift
    let position = RowPosition(section: 0, row: 2)
    let album = albums.object(at: position)
    tableView.reloadRows(at: [IndexPath(position)], with: .automatic)  // UIKit takes IndexPaths
    // end snippet
    #expect(album === artist.albums[2])
    #expect(tableView.failures.isEmpty)
    #expect(tableView.shownContent[0].rows.last == "Kind of Blue (Legacy Edition)")
    #expect(RowPosition(IndexPath(position)) == position)
  }
}

// MARK: - RelationController+Delivery.swift

extension DocCommentExamplesTests {
  /// A delegate that updates a table view row by row: the example of `RelationChangeType`.
  @MainActor
  final class RowByRowTable: @MainActor RelationControllerDelegate {
    let tableView: UITableView

    init(tableView: UITableView) {
      self.tableView = tableView
    }

    func relationControllerWillChangeContent(_ controller: RelationController<Album, Int>) {
      tableView.beginUpdates()
    }

    func relationController(
      _ controller: RelationController<Album, Int>,
      didChange section: RelationController<Album, Int>.Section,
      atSectionIndex index: Int, for type: RelationChangeType
    ) {
      switch type {
      case .insert: tableView.insertSections([index], with: .automatic)
      case .delete: tableView.deleteSections([index], with: .automatic)
      case .update, .move: break
      }
    }

    func relationController(
      _ controller: RelationController<Album, Int>, didChange album: Album,
      at position: RowPosition?, for type: RelationChangeType, newPosition: RowPosition?
    ) {
      // snippet cc-change-type: Sources/CollectionController/Relation/RelationController+Delivery.swift
      switch (type, position, newPosition) {  // in the delegate's element callback
      case (.insert, _, let new?):
        tableView.insertRows(at: [IndexPath(new)], with: .automatic)
      case (.delete, let old?, _):
        tableView.deleteRows(at: [IndexPath(old)], with: .automatic)
      case (.move, let old?, let new?):
        tableView.moveRow(at: IndexPath(old), to: IndexPath(new))
      case (.update, let old?, _):
        tableView.reloadRows(at: [IndexPath(old)], with: .automatic)
      default:
        break  // not reached: each type comes with the positions it names
      }
      // end snippet
    }

    func relationController(
      _ controller: RelationController<Album, Int>,
      didChangeContent changes: RelationChangeSet<Album>
    ) {
      tableView.endUpdates()
    }
  }

  @MainActor @Test func eachTypeOfChangeIsARowUpdate() throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.decade },
      observing: [\.isLive])
    let dataSource = AlbumTitles(albums: albums)
    let tableView = Self.tableView(showing: dataSource)
    let delegate = RowByRowTable(tableView: tableView)
    albums.delegate = delegate
    artist.albums.append(Album("Amandla", year: 1989))  // insert
    artist.albums[0].year = 1959  // move
    artist.albums[1].isLive = true  // update
    _ = artist.remove(at: 4, from: \.albums)  // delete
    #expect(tableView.batchCount == 4)
    #expect(tableView.failures.isEmpty)
    #expect(tableView.shownContent == Self.content(of: albums))
    withExtendedLifetime(dataSource) {}
  }

  @Test func aDelegateHearsEachElementThatChanged() throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.decade })
    let lines = Self.printed {
      // snippet cc-delegate: Sources/CollectionController/Relation/RelationController+Delivery.swift
      final class AlbumList: RelationControllerDelegate {
        func relationController(
          _ controller: RelationController<Album, Int>, didChange album: Album,
          at position: RowPosition?, for type: RelationChangeType, newPosition: RowPosition?
        ) { print(type, position as Any, newPosition as Any) }
      }
      let list = AlbumList()
      albums.delegate = list  // held weakly: keep `list`
      // end snippet
      artist.albums.append(Album("Amandla", year: 1989))
      artist.albums[0].year = 1971
      withExtendedLifetime(list) {}
    }
    #expect(
      lines == [
        "insert nil Optional([2, 1])",
        "move Optional([0, 0]) Optional([1, 1])",  // Birth of the Cool: ties keep relation order
      ])
  }

  @Test func aDelegateIsSet() throws {
    final class Counter: RelationControllerDelegate {
      var count = 0

      func relationController(
        _ controller: RelationController<Album, Int>,
        didChangeContent changes: RelationChangeSet<Album>
      ) { count += 1 }
    }
    let artist = Self.sampleArtist()
    let albums = try RelationController(\.albums, of: artist, sectionedBy: { $0.decade })
    let albumList = Counter()
    // snippet cc-delegate-property: Sources/CollectionController/Relation/RelationController+Delivery.swift
    albums.delegate = albumList
    // end snippet
    artist.albums.append(Album("Amandla", year: 1989))
    #expect(albumList.count == 1)
    #expect(albums.delegate === albumList)
  }

  @Test func aHandlerHearsEachChangeSetWhileItsTokenIsKept() throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.decade })
    let lines = Self.printed {
      // snippet cc-on-change: Sources/CollectionController/Relation/RelationController+Delivery.swift
      let token = albums.onChange { changes in
        print(changes.insertedRows, changes.deletedRows)
      }
      // keep `token` as long as you want to hear changes (a stored property)
      // end snippet
      artist.albums.append(Album("Amandla", year: 1989))
      _ = artist.remove(at: 1, from: \.albums)
      token.cancel()
      artist.albums.append(Album("Doo-Bop", year: 1992))  // not heard
    }
    #expect(lines == ["[[2, 1]] []", "[] [[0, 1]]"])
  }

  @Test func aSequenceOfChangeSetsKeepsACopyUpToDate() async throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.decade })
    let iteration = Task {
      // snippet cc-change-sequence: Sources/CollectionController/Relation/RelationController+Delivery.swift
      var content = albums.sections.map { $0.objects }
      for await changes in albums.changes { changes.apply(to: &content) }
      // end snippet
      return content.map { $0.map(\.title) }
    }
    await Self.untilIterating(albums)
    Self.edit(artist)
    iteration.cancel()  // after the change sets it holds: they were all delivered already
    #expect(await iteration.value == albums.sections.map { $0.objects.map(\.title) })
  }

  @Test func aSequenceOfChangeSetsPrintsThem() async throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.decade })
    let lines = await Self.printedAsync {
      let iteration = Task {  // inherits the transcript
        // snippet cc-changes: Sources/CollectionController/Relation/RelationController+Delivery.swift
        for await changes in albums.changes { print(changes) }
        // end snippet
      }
      await Self.untilIterating(albums)
      artist.albums.append(Album("Amandla", year: 1989))
      artist.albums[0].year = 1971
      iteration.cancel()
      await iteration.value
    }
    // `*`: a move that changed, as any write to an album counts where its section is a closure's.
    #expect(lines == ["ChangeSet(+rows: [2, 1])", "ChangeSet(moves: [0, 0]->[1, 1]*)"])
  }
}

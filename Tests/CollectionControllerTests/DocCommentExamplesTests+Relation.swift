import Binding
import Foundation
import Testing

@testable import CollectionController

// The examples of the documentation comments of relations: their fine-grained edits, their
// collection types, and a controller's configuration (see DocCommentExamplesTests.swift).

/// Prints into the transcript of the test running (see `DocCommentExamplesTests.printed(_:)`).
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
  let line = items.map { "\($0)" }.joined(separator: separator)
  if let transcript = DocCommentExamplesTests.Transcript.current {
    transcript.lines.withLock { $0.append(line) }
  } else {
    Swift.print(line, terminator: terminator)
  }
}

extension DocCommentExamplesTests {
  /// The titles of the albums of a relation, in its order.
  static func titles(_ albums: [Album]) -> [String] { albums.map(\.title) }

  /// Records the change sets of `albums` until the returned token is released.
  static func record<Key>(
    _ albums: RelationController<Album, Key>, into log: Log<Key>
  ) -> ObservationToken {
    albums.onChange { log.changes.append($0) }
  }

  /// The change sets a controller delivered.
  final class Log<Key: Hashable & Comparable> {
    var changes: [RelationChangeSet<Album>] = []
  }
}

// MARK: - RelationMutation.swift

extension DocCommentExamplesTests {
  /// The edits of an array relation at indexes; the controller hears each as one change set.
  @Test func fineGrainedEditsOfAnArray() throws {
    let artist = Self.sampleArtist()
    let album = Album("Amandla", year: 1989)
    let albums = try RelationController(\.albums, of: artist)  // in the relation's order
    let log = Log<Unsectioned>()
    let token = Self.record(albums, into: log)
    // snippet cc-mutation-apply: Sources/CollectionController/Relation/RelationMutation.swift
    artist.apply(.insert(album, at: 0), to: \.albums)
    artist.apply(.move(from: 3, to: 0), to: \.albums)
    // end snippet
    #expect(
      Self.titles(artist.albums) == [
        "Kind of Blue", "Amandla", "Birth of the Cool", "Milestones", "Bitches Brew", "Live-Evil",
        "Tutu",
      ])
    #expect(albums.objects == artist.albums)
    #expect(
      log.changes.map(\.description) == [
        "ChangeSet(+rows: [0, 0])", "ChangeSet(moves: [0, 3]->[0, 0])",
      ])

    _ = artist.remove(at: 1, from: \.albums)

    // snippet cc-mutation-apply-insert: Sources/CollectionController/Relation/RelationMutation.swift
    artist.apply(.insert(album, at: 0), to: \.albums)
    // end snippet
    #expect(artist.albums.first === album && albums.objects.first === album)

    // snippet cc-mutation-remove: Sources/CollectionController/Relation/RelationMutation.swift
    artist.remove(album, from: \.albums)  // instead of remove(at: firstIndex { $0 === album }!)
    // end snippet
    #expect(!artist.albums.contains(album) && !albums.objects.contains(album))

    // snippet cc-mutation-insert: Sources/CollectionController/Relation/RelationMutation.swift
    artist.insert(album, at: 0, into: \.albums)
    // end snippet
    #expect(artist.albums.first === album && albums.objects.first === album)

    // snippet cc-mutation-remove-at: Sources/CollectionController/Relation/RelationMutation.swift
    let removed = artist.remove(at: 2, from: \.albums)
    // end snippet
    #expect(removed.title == "Birth of the Cool")
    #expect(albums.objects == artist.albums)
    #expect(log.changes.count == 7)  // one per edit
    withExtendedLifetime(token) {}
  }

  @Test func fineGrainedEditsOfASet() throws {
    let artist = Self.sampleArtist()
    let album = Album("Amandla", year: 1989)
    let albums = try RelationController(\.albumSet, of: artist)
    let log = Log<Unsectioned>()
    let token = Self.record(albums, into: log)
    // snippet cc-mutation-set-insert: Sources/CollectionController/Relation/RelationMutation.swift
    artist.insert(album, into: \.albumSet)
    // end snippet
    #expect(artist.albumSet == [album] && albums.objects == [album])
    // snippet cc-mutation-set-remove: Sources/CollectionController/Relation/RelationMutation.swift
    artist.remove(album, from: \.albumSet)
    // end snippet
    #expect(artist.albumSet.isEmpty && albums.isEmpty)
    #expect(
      log.changes.map(\.description) == ["ChangeSet(+rows: [0, 0])", "ChangeSet(-rows: [0, 0])"])
    withExtendedLifetime(token) {}
  }
}

// MARK: - RelationCollection.swift

extension DocCommentExamplesTests {
  @Test func anArrayOrASetIsARelation() throws {
    let first = Album("Milestones", year: 1958)
    let second = Album("Birth of the Cool", year: 1957)
    // snippet cc-relation-collection: Sources/CollectionController/Relation/RelationCollection.swift
    final class Artist: ObservableModel {
      let observation = ObservationStorage()
      @Observed var albums: [Album] = []  // an array: ties and no sort keep its order
      @Observed var albumSet: Set<Album> = []  // a set: ties keep the order of entry
    }
    let artist = Artist()
    let albumList = try RelationController(\.albums, of: artist)
    let albumSetList = try RelationController(\.albumSet, of: artist)
    // end snippet
    artist.albums = [first, second]
    artist.insert(first, into: \.albumSet)
    artist.insert(second, into: \.albumSet)
    #expect(albumList.objects == [first, second])
    #expect(albumSetList.objects == [first, second])
    artist.albums.reverse()
    #expect(albumList.objects == [second, first])
  }
}

// MARK: - Unsectioned.swift

extension DocCommentExamplesTests {
  @Test func anUnsectionedControllerHasOneSection() throws {
    let artist = Artist()
    let lines = try Self.printed {
      // snippet cc-unsectioned: Sources/CollectionController/Relation/Unsectioned.swift
      let albums = try RelationController(\.albums, of: artist)
      print(albums.numberOfSections)  // 1, always
      // end snippet
      var changes: [RelationChangeSet<Album>] = []
      let token = albums.onChange { changes.append($0) }
      artist.albums = [Album("Tutu", year: 1986)]
      artist.albums = []
      print(albums.numberOfSections)
      #expect(changes.allSatisfy { $0.insertedSections.isEmpty && $0.deletedSections.isEmpty })
      #expect(changes.count == 2)
      withExtendedLifetime(token) {}
    }
    #expect(lines == ["1", "1"])
  }
}

// MARK: - RelationUpdates.swift

extension DocCommentExamplesTests {
  @Test func updatesOfEverythingReadOrOfObservedAttributes() throws {
    let artist = Self.sampleArtist()
    // snippet cc-relation-updates: Sources/CollectionController/Relation/RelationUpdates.swift
    // Every visible change (the default): renaming an album sorted by title reloads its row.
    let albums = try RelationController(\.albums, of: artist, sortedBy: [SortDescriptor(\.title)])

    // Only the attributes named in `observing:` (the rule of earlier releases).
    let quiet = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.title)], observing: [\.rating],
      reportsUpdatesOf: .observedAttributes)
    // end snippet
    let (log, quietLog) = (Log<Unsectioned>(), Log<Unsectioned>())
    let tokens = [Self.record(albums, into: log), Self.record(quiet, into: quietLog)]
    artist.albums[5].title = "Tutu (Deluxe Edition)"  // still the last by title
    #expect(log.changes.map(\.updatedRows) == [[RowPosition(section: 0, row: 5)]])
    #expect(quietLog.changes.isEmpty)
    artist.albums[5].rating = 5
    #expect(log.changes.count == 1)
    #expect(quietLog.changes.map(\.updatedRows) == [[RowPosition(section: 0, row: 5)]])
    withExtendedLifetime(tokens) {}
  }
}

// MARK: - RelationController+Configuration.swift

extension DocCommentExamplesTests {
  @Test func aFilterIsAClosureOrAPredicate() throws {
    let artist = Self.sampleArtist()
    do {
      // snippet cc-filter-matching: Sources/CollectionController/Relation/RelationController+Configuration.swift
      let albums = try RelationController(\.albums, of: artist, filter: .matching { !$0.isLive })
      // end snippet
      #expect(!albums.objects.contains { $0.isLive } && albums.count == 5)
    }
    do {
      // snippet cc-filter-predicate: Sources/CollectionController/Relation/RelationController+Configuration.swift
      let albums = try RelationController(
        \.albums, of: artist, filter: .matching(#Predicate { !$0.isLive }))
      // end snippet
      #expect(!albums.objects.contains { $0.isLive } && albums.count == 5)
    }
    let albums = try RelationController(\.albums, of: artist)
    // snippet cc-filter: Sources/CollectionController/Relation/RelationController+Configuration.swift
    try albums.reconfigure { $0.filter = .matching { $0.year > 1990 } }
    try albums.reconfigure { $0.filter = .matching(#Predicate { $0.year > 1990 }) }
    // end snippet
    #expect(albums.isEmpty)
    artist.albums.append(Album("Doo-Bop", year: 1992))
    #expect(Self.titles(albums.objects) == ["Doo-Bop"])
  }

  @Test func reconfigurationChangesWhatIsShownAndHow() throws {
    let artist = Self.sampleArtist()
    let albums = try RelationController(
      \.albums, of: artist, filter: .matching { !$0.isLive }, sortedBy: [SortDescriptor(\.year)])
    let log = Log<Unsectioned>()
    let token = Self.record(albums, into: log)
    // snippet cc-configuration: Sources/CollectionController/Relation/RelationController+Configuration.swift
    try albums.reconfigure { configuration in
      configuration.sortedBy = [SortDescriptor(\.title)]
      configuration.filter = nil
    }
    // end snippet
    #expect(
      Self.titles(albums.objects) == [
        "Birth of the Cool", "Bitches Brew", "Kind of Blue", "Live-Evil", "Milestones", "Tutu",
      ])
    #expect(log.changes.count == 1)  // one diffed change set
    // snippet cc-configuration-reverse: Sources/CollectionController/Relation/RelationController+Configuration.swift
    try albums.reconfigure { $0.sortedBy = [SortDescriptor(\.title, order: .reverse)] }
    // end snippet
    #expect(albums.objects.first?.title == "Tutu")
    // snippet cc-configuration-updates: Sources/CollectionController/Relation/RelationController+Configuration.swift
    try albums.reconfigure { $0.reportsUpdatesOf = .observedAttributes }
    // end snippet
    #expect(albums.configuration.reportsUpdatesOf == .observedAttributes)
    let count = log.changes.count
    artist.albums[5].title = "Tutu (Deluxe Edition)"  // still the first, and not observed
    #expect(log.changes.count == count)
    withExtendedLifetime(token) {}
  }
}

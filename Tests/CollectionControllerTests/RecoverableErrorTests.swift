import Binding
import CollectionController
import Foundation
import Testing

/// Recoverable conditions throw or return `nil`/`false`, and leave the models and the
/// controllers exactly as they were: same content, sections and relation value, no change set,
/// no write, and the same behaviour afterwards as an untouched twin.
@Suite struct RecoverableErrorTests {}

/// Everything a receiver can read of a controller.
private struct Observable<Key: Hashable & Comparable>: Equatable {
  let snapshot: RelationController<Album, Key>.Snapshot
  let names: [String]
  let count: Int

  init(_ controller: RelationController<Album, Key>) {
    snapshot = controller.snapshot
    names = controller.sections.map(\.name)
    count = controller.count
  }
}

extension RecoverableErrorTests {
  @Test(arguments: [
    "predicate throws", "a sort on a plain property", "every part changes, one reads nothing",
  ])
  func aReconfigurationThatFailsChangesNothing(_ failure: String) throws {
    let artist = Artist([
      Album("a", year: 1981, label: Label("x")), Album("b", year: 1995),
      Album("c", year: 1990, label: Label("y")), Album("d", year: 1984, isLive: true),
    ])
    func controller() throws -> RelationController<Album, Int> {
      try RelationController(
        \.albums, of: artist, filter: .matching { !$0.isLive },
        sortedBy: [SortDescriptor(\.year, order: .reverse)], sectionedBy: { $0.decade },
        observing: [\.title])
    }
    let subject = try controller()
    let twin = try controller()
    var subjectChanges: [String] = []
    var twinChanges: [String] = []
    let changeToken = subject.onChange { subjectChanges.append("\($0)") }
    defer { changeToken.cancel() }
    let changeToken2 = twin.onChange { twinChanges.append("\($0)") }
    defer { changeToken2.cancel() }
    let before = Observable(subject)
    let relation = artist.albums.map(ObjectIdentifier.init)
    let labels = artist.albums.map { $0.label?.name }

    switch failure {
    case "predicate throws":
      // `b` has no label: the predicate throws for it.
      let throwing = #Predicate<Album> { $0.label!.name == "x" }
      #expect(throws: RelationConfigurationError.self) {
        try subject.reconfigure { $0.filter = .init(throwing) }
      }
    case "a sort on a plain property":
      #expect(throws: RelationConfigurationError.self) {
        try subject.reconfigure { $0.sortedBy = [SortDescriptor(\.plain)] }
      }
    default:
      #expect(throws: RelationConfigurationError.self) {
        try subject.reconfigure { configuration in
          configuration.filter = nil
          configuration.sortedBy = [SortDescriptor(\.year, order: .reverse)]
          configuration.sectionedBy = { $0.year % 3 }
          configuration.observing = [\.plain]
        }
      }
    }

    #expect(Observable(subject) == before)
    #expect(artist.albums.map(ObjectIdentifier.init) == relation)
    #expect(artist.albums.map { $0.label?.name } == labels)
    #expect(subjectChanges.isEmpty)
    // It still filters, sorts, sections and observes as before: the same edits give the same
    // change sets as its twin's.
    artist.albums[1].title = "new title"  // an update
    artist.albums[0].year = 2001  // a new section
    artist.albums[3].isLive = false  // enters the filter
    artist.albums[2].isLive = true  // leaves it
    artist.insert(Album("e", year: 1999), at: 0, into: \.albums)
    coalesce {
      artist.albums[1].year = 1970
      artist.remove(at: 4, from: \.albums)
    }
    #expect(subjectChanges.count == 6)
    #expect(subjectChanges == twinChanges)
    #expect(Observable(subject) == Observable(twin))
  }

  @Test func aControllerThatCannotBeCreatedLeavesTheModelsAsTheyWere() throws {
    let artist = Artist([Album("a", label: Label("x")), Album("b")])
    let existing = try RelationController(\.albums, of: artist, sortedBy: [SortDescriptor(\.name)])
    var changes = 0
    let changeToken3 = existing.onChange { _ in changes += 1 }
    defer { changeToken3.cancel() }
    let before = Observable(existing)
    let throwing = #Predicate<Album> { $0.label!.name == "x" }
    #expect(throws: RelationConfigurationError.self) {
      _ = try RelationController(\.albums, of: artist, filter: .matching(throwing))
    }
    #expect(Observable(existing) == before)
    #expect(artist.albums.map(\.name) == ["a", "b"])
    #expect(changes == 0)
    artist.albums.append(Album("c"))
    #expect(changes == 1)
    #expect(existing.objects.map(\.name) == ["a", "b", "c"])
  }

  /// Removing from a set relation an element that is not in it returns `nil`, and inserting
  /// one that is returns `false`: nothing is written, so nobody hears anything.
  @Test func setMutationsThatChangeNothingWriteNothing() throws {
    let a = Album("a", year: 2)
    let b = Album("b", year: 1)
    let stranger = Album("stranger")
    let artist = Artist()
    artist.albumSet = [a, b]
    let albums = try RelationController(
      \.albumSet, of: artist, sortedBy: [SortDescriptor(\.year)], observing: [\.title])
    var writes = 0
    let token = artist.observe(\.albumSet, options: .everySet) { _ in writes += 1 }
    var changes = 0
    let changeToken4 = albums.onChange { _ in changes += 1 }
    defer { changeToken4.cancel() }
    let before = Observable(albums)
    let set = artist.albumSet

    #expect(artist.remove(stranger, from: \.albumSet) == nil)
    #expect(!artist.insert(a, into: \.albumSet))
    #expect(!artist.insert(b, into: \.albumSet))

    #expect(writes == 0)
    #expect(changes == 0)
    #expect(artist.albumSet == set)
    #expect(Observable(albums) == before)
    // The controller still observes its elements and the relation.
    a.title = "t"
    #expect(changes == 1)
    #expect(artist.remove(a, from: \.albumSet) === a)
    #expect(writes == 1 && changes == 2)
    #expect(albums.objects.map(\.name) == ["b"])
    token.cancel()
  }
}

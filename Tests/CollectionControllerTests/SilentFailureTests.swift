import Binding
import CollectionController
import Foundation
import Testing

/// A filter, sort, section function or observed attribute that reads no `@Observed` property,
/// yet depends on the element (its results differ between elements, or it sorts by a plain
/// `var`), could never see a change: the controller would go stale without a word. It is
/// rejected when the controller is made or reconfigured, naming the function and the element
/// type; the controller is left as it was. A constant is accepted.
@Suite struct SilentFailureTests {
  static let readsNothing = "reads no @Observed property of Album"

  /// Three albums whose plain (unobserved) property differs.
  func makeArtist() -> Artist {
    let albums = [Album("a", year: 1990), Album("b", year: 1980), Album("c", year: 1985)]
    for (index, album) in albums.enumerated() { album.plain = index }
    return Artist(albums)
  }

  func message(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test func aFilterReadingAPlainPropertyIsRejected() {
    let artist = makeArtist()
    let closure = message {
      _ = try RelationController(\.albums, of: artist, filter: .matching { $0.plain == 0 })
    }
    #expect(closure?.contains("the filter \(Self.readsNothing)") == true, "\(closure ?? "")")
    let predicate = message {
      _ = try RelationController(
        \.albums, of: artist, filter: .matching(#Predicate { $0.plain == 0 }))
    }
    #expect(predicate?.contains("the filter \(Self.readsNothing)") == true, "\(predicate ?? "")")
  }

  @Test func aSortOnAPlainPropertyIsRejected() {
    let artist = makeArtist()
    let descriptor = message {
      _ = try RelationController(
        \.albums, of: artist, sortedBy: [SortDescriptor(\.year), SortDescriptor(\.plain)])
    }
    #expect(
      descriptor?.contains("the sort comparator 2 of 2 (on \\Album.plain) \(Self.readsNothing)")
        == true, "\(descriptor ?? "")")
    let comparator = message {
      _ = try RelationController(\.albums, of: artist, sortedBy: [KeyPathComparator(\.plain)])
    }
    #expect(
      comparator?.contains("the sort comparator 1 of 1 (on \\Album.plain) \(Self.readsNothing)")
        == true, "\(comparator ?? "")")
  }

  @Test func aSectionFunctionOrObservedAttributeReadingNothingIsRejected() {
    let artist = makeArtist()
    let section = message {
      _ = try RelationController(\.albums, of: artist, sectionedBy: { $0.plain })
    }
    #expect(
      section?.contains("the section function (sectionedBy:) \(Self.readsNothing)") == true,
      "\(section ?? "")")
    let observed = message {
      _ = try RelationController(\.albums, of: artist, observing: [\.title, \.plain])
    }
    #expect(
      observed?.contains("the observed attribute \\Album.plain \(Self.readsNothing)") == true,
      "\(observed ?? "")")
  }

  /// A reconfiguration to a function that reads nothing throws and changes nothing.
  @Test func aReconfigurationReadingNothingLeavesTheControllerAsItWas() throws {
    let artist = makeArtist()
    let albums = try RelationController(\.albums, of: artist, sortedBy: [SortDescriptor(\.year)])
    let log = ChangeLog(albums)
    let error = message { try albums.reconfigure { $0.filter = .init { $0.plain > 0 } } }
    #expect(error?.contains("the filter \(Self.readsNothing)") == true, "\(error ?? "")")
    #expect(error?.contains("the controller was left as it was") == true)
    #expect(albums.configuration.filter == nil)
    #expect(albums.names() == [["b", "c", "a"]])
    artist.albums[0].year = 1970  // still observed with the old configuration
    #expect(albums.names() == [["a", "b", "c"]])
    #expect(log.count == 1)
    #expect(log.failures.isEmpty, "\(log.failures)")
  }

  /// What is accepted: a sort on a key path to a constant (`let name`), a function that reads
  /// an `@Observed` property only on some paths (if a current element takes one), and a
  /// function that reads another object's `@Observed` property.
  @Test func constantsAndFunctionsThatReadSomethingObservedAreAccepted() throws {
    let artist = makeArtist()
    let byName = try RelationController(
      \.albums, of: artist, filter: .matching { $0.name != "a" && !$0.isLive },
      sortedBy: [SortDescriptor(\.name, order: .reverse)])
    #expect(byName.names() == [["c", "b"]])
    artist.albums[1].isLive = true
    #expect(byName.names() == [["c"]])
    let label = Label("EMI")
    let byLabel = try RelationController(
      \.albums, of: artist, filter: .matching { _ in label.name == "EMI" })
    #expect(byLabel.count == 3)
    label.name = "Decca"
    #expect(byLabel.count == 0)
  }

  /// Nothing can be evaluated while the relation is empty: the check waits for the next
  /// reconfiguration (documented).
  @Test func anEmptyRelationIsNotChecked() throws {
    let artist = Artist()
    let albums = try RelationController(\.albums, of: artist, filter: .matching { $0.plain == 0 })
    artist.albums.append(Album("a"))
    #expect(albums.count == 1)
    let error = message { try albums.reconfigure { $0.sortedBy = [SortDescriptor(\.plain)] } }
    #expect(
      error?.contains("the sort comparator 1 of 1 (on \\Album.plain) \(Self.readsNothing)") == true,
      "\(error ?? "")")
  }

  /// A function whose result is the same for every element is a constant, accepted: one
  /// section, a filter over captured state that ignores the element for now, a comparator
  /// that orders nothing.
  @Test func constantFunctionsAreAccepted() throws {
    let artist = makeArtist()
    let oneSection = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { _ in 0 })
    #expect(oneSection.sections.map(\.key) == [0])
    let query = ""
    let searched = try RelationController(
      \.albums, of: artist, filter: .matching { query.isEmpty || $0.name.contains(query) })
    #expect(searched.count == 3)
    let unordered = try RelationController(
      \.albums, of: artist, sortedBy: [ClosureComparator { _, _ in .orderedSame }])
    #expect(unordered.count == 3)
  }

  /// A function that reads a `let` (nothing observable) and differs between elements is
  /// rejected too: the message says to mark it `@Observed`.
  @Test func aFilterOnALetThatDiffersIsRejected() {
    let error = message {
      _ = try RelationController(\.albums, of: makeArtist(), filter: .matching { $0.name != "a" })
    }
    #expect(error?.contains("its results differ between the current elements") == true)
    #expect(error?.contains("Mark what it reads @Observed (a `let` too)") == true)
  }
}

/// A comparator of the test's own, comparing with a closure.
struct ClosureComparator: SortComparator {
  let compareAlbums: @Sendable (Album, Album) -> ComparisonResult
  var order: SortOrder = .forward
  init(_ compare: @escaping @Sendable (Album, Album) -> ComparisonResult) {
    compareAlbums = compare
  }
  func compare(_ lhs: Album, _ rhs: Album) -> ComparisonResult { compareAlbums(lhs, rhs) }
  static func == (lhs: ClosureComparator, rhs: ClosureComparator) -> Bool { true }
  func hash(into hasher: inout Hasher) {}
}

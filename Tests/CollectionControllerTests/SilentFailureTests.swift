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

  /// A creation that fails says that no controller was created: there is none to be "left as
  /// it was" (issue 31, item 5). A reconfiguration's says the controller was left as it was.
  @Test func aCreationErrorSaysNoControllerWasCreated() {
    let artist = makeArtist()
    let readsNothing = message {
      _ = try RelationController(\.albums, of: artist, filter: .matching { $0.plain == 0 })
    }
    let throwing = message {
      _ = try RelationController(
        \.albums, of: artist,
        filter: .matching(#Predicate { $0.label!.name == "EMI" }))
    }
    let deleted = message {
      let owner = makeArtist()
      owner.announceDeletion()
      _ = try RelationController(\.albums, of: owner)
    }
    for error in [readsNothing, throwing, deleted] {
      #expect(error?.hasSuffix("; no controller was created") == true, "\(error ?? "no error")")
      #expect(error?.contains("left as it was") == false, "\(error ?? "no error")")
    }
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

  /// Orders by the group (a `let`: the first letter of the name), then, within a group, by
  /// year (`@Observed`).
  static func groupThenYear() -> ClosureComparator {
    ClosureComparator { a, b in
      if a.group != b.group { return a.group < b.group ? .orderedAscending : .orderedDescending }
      return a.year < b.year
        ? .orderedAscending : a.year > b.year ? .orderedDescending : .orderedSame
    }
  }

  /// A comparator that orders by a `let` and breaks ties with an `@Observed` property is
  /// accepted whatever the current elements: when no two share a group no pair of them reaches
  /// the tie-break, but comparing an element with itself does (as the controller does when it
  /// watches the element). A tie that comes later is ordered by the observed property, and
  /// follows its changes.
  @Test func aTieBreakingComparatorIsAcceptedWhenNoCurrentElementsTie() throws {
    let artist = Artist([
      Album("y1", year: 1990), Album("x1", year: 1980), Album("z1", year: 1970),
    ])
    let albums = try RelationController(\.albums, of: artist, sortedBy: [Self.groupThenYear()])
    #expect(albums.names() == [["x1", "y1", "z1"]])
    artist.albums.append(Album("x2", year: 1975))
    #expect(albums.names() == [["x2", "x1", "y1", "z1"]])
    artist.albums[1].year = 1970
    #expect(albums.names() == [["x1", "x2", "y1", "z1"]])
  }

  /// The same on reconfiguration, from a sort on the years alone.
  @Test func aTieBreakingComparatorIsAcceptedOnReconfigurationWhenNoCurrentElementsTie() throws {
    let other = Artist([Album("b1", year: 1990), Album("a1", year: 1995)])
    let reconfigured = try RelationController(
      \.albums, of: other, sortedBy: [SortDescriptor(\.year)])
    #expect(reconfigured.names() == [["b1", "a1"]])
    try reconfigured.reconfigure { $0.sortedBy = [Self.groupThenYear()] }
    #expect(reconfigured.names() == [["a1", "b1"]])
    other.albums.append(Album("a2", year: 1990))
    #expect(reconfigured.names() == [["a2", "a1", "b1"]])
    other.albums[1].year = 1980
    #expect(reconfigured.names() == [["a1", "a2", "b1"]])
  }

  /// A comparator that reads an `@Observed` property only when the two elements differ (it
  /// answers at once for an element compared with itself) is accepted too: the controller
  /// watches every `@Observed` property of each element it shows.
  @Test func aComparatorThatReadsOnlyForTwoElementsIsAccepted() throws {
    let artist = Artist([Album("a", year: 1990), Album("b", year: 1980)])
    let albums = try RelationController(
      \.albums, of: artist,
      sortedBy: [
        ClosureComparator { a, b in
          a === b ? .orderedSame : a.year < b.year ? .orderedAscending : .orderedDescending
        }
      ])
    #expect(albums.names() == [["b", "a"]])
    artist.albums[0].year = 1970
    #expect(albums.names() == [["a", "b"]])
  }

  /// What observation cannot tell, listed in ChangeDelivery: a function that reads an
  /// `@Observed` property for one element is accepted although it reads a plain `var` for the
  /// others (the controller cannot tell a plain `var` from a `let` there), and so is a sort on
  /// a read-only computed property over a plain `var` (a key path does not tell it from a
  /// `let`); neither follows a change of the plain `var`. A comparator that reads another
  /// object only for two different elements is accepted, and does not follow that object.
  @Test func whatObservationCannotTellIsAccepted() throws {
    let artist = makeArtist()  // `plain` is 0, 1, 2
    let filtered = try RelationController(
      \.albums, of: artist, filter: .matching { $0.plain == 0 && !$0.isLive })
    #expect(filtered.names() == [["a"]])
    artist.albums[1].plain = 0
    #expect(filtered.names() == [["a"]])  // stale: "b" now matches
    let sorted = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.plainTwice, order: .reverse)])
    #expect(sorted.names() == [["c", "a", "b"]])
    artist.albums[2].plain = -1
    #expect(sorted.names() == [["c", "a", "b"]])  // stale: "c" now sorts last
    let emi = Label("EMI")
    let labelled = Artist([Album("a", label: emi), Album("b", label: Label("Decca"))])
    let byLabel = try RelationController(
      \.albums, of: labelled,
      sortedBy: [
        ClosureComparator { a, b in
          a === b ? .orderedSame : FuzzConfiguration.order(a.labelName, b.labelName)
        }
      ])
    #expect(byLabel.names() == [["b", "a"]])
    emi.name = "Abbey"
    #expect(byLabel.names() == [["b", "a"]])  // stale: "a" now sorts first
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

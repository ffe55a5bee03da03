import Binding
import Foundation
import Testing

@testable import CollectionController

/// Every visible change is reported: an element that stays in place while something its
/// filter, sort or section functions read changed is an update (a move flagged `changed` when
/// it moves), whether or not the attribute is listed in `observing:`.
@Suite struct UpdateReportingTests {}

extension UpdateReportingTests {
  /// The case of issue 31: renaming an album whose title is the sort key, when the order does
  /// not change, must reload its row (the cell shows the title).
  @Test func aSortKeyChangeThatKeepsThePlaceIsAnUpdate() throws {
    let artist = Artist([Album("a", title: "Abbey Road"), Album("b", title: "Help")])
    let albums = try RelationController(\.albums, of: artist, sortedBy: [SortDescriptor(\.title)])
    let log = ChangeLog(albums)
    artist.albums[1].title = "Help!"
    #expect(log.count == 1)
    #expect(log.last?.updatedRows == [RowPosition(section: 0, row: 1)])
    #expect(log.last?.updatedElements.map(\.name) == ["b"])
    #expect(log.last?.movedRows.isEmpty == true)
    #expect(log.failures.isEmpty, "\(log.failures)")
  }

  /// A change of what the filter reads that keeps the element shown is an update.
  @Test func aFilterReadChangeThatKeepsMembershipIsAnUpdate() throws {
    let artist = Artist(makeAlbums([("a", 1995), ("b", 1985), ("c", 1999)]))
    let albums = try RelationController(
      \.albums, of: artist, filter: .matching { $0.year > 1990 })
    let log = ChangeLog(albums)
    #expect(albums.names() == [["a", "c"]])
    artist.albums[2].year = 1996
    #expect(log.count == 1)
    #expect(log.last?.updatedRows == [RowPosition(section: 0, row: 1)])
    #expect(log.last?.updatedElements.map(\.name) == ["c"])
    #expect(log.failures.isEmpty, "\(log.failures)")
  }

  /// A change of what the section function reads that keeps the element in its section (and
  /// at its row) is an update: 1991 to 1992 in decades.
  @Test func aSectionKeyReadChangeThatKeepsTheSectionIsAnUpdate() throws {
    let artist = Artist(makeAlbums([("a", 1985), ("b", 1991), ("c", 1970)]))
    let albums = try RelationController(\.albums, of: artist, sectionedBy: { $0.decade })
    let log = ChangeLog(albums)
    #expect(albums.names() == [["c"], ["a"], ["b"]])
    artist.albums[1].year = 1992
    #expect(log.count == 1)
    #expect(log.last?.updatedRows == [RowPosition(section: 2, row: 0)])
    #expect(log.last?.updatedElements.map(\.name) == ["b"])
    #expect(log.failures.isEmpty, "\(log.failures)")
  }

  /// A sort key that changes and moves the element is a move flagged `changed`: the row
  /// shows the new value once moved.
  @Test func aMoveBecauseOfASortKeyIsFlaggedChanged() throws {
    let artist = Artist(makeAlbums([("a", 1), ("b", 5)]))
    let albums = try RelationController(\.albums, of: artist, sortedBy: [SortDescriptor(\.year)])
    let log = ChangeLog(albums)
    artist.albums[1].year = 0
    #expect(log.last?.movedRows.map(\.changed) == [true])
    #expect(log.last?.updatedRows.isEmpty == true)
    #expect(log.failures.isEmpty, "\(log.failures)")
  }

  /// A change of an object the sort reads through the element (a label's name) that keeps
  /// the order updates every element that reads it, in one change set.
  @Test func aSharedObjectReadByTheSortUpdatesItsReaders() throws {
    let emi = Label("EMI")
    let artist = Artist([
      Album("a", label: Label("Apple")), Album("b", label: emi), Album("c", label: emi),
    ])
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.labelName)])
    let log = ChangeLog(albums)
    #expect(albums.names() == [["a", "b", "c"]])
    emi.name = "EMI Records"
    #expect(log.count == 1)
    #expect(
      log.last?.updatedRows == [RowPosition(section: 0, row: 1), RowPosition(section: 0, row: 2)])
    #expect(log.failures.isEmpty, "\(log.failures)")
  }

  /// With no filter, one section and a sort on key paths, the controller compares what the
  /// functions read by value: an equal write, a value written back within one block and a
  /// write of a property nothing reads are no update.
  @Test func withoutClosuresWhatIsReadIsComparedByValue() throws {
    let artist = Artist([Album("a", title: "Abbey Road"), Album("b", title: "Help")])
    let albums = try RelationController(\.albums, of: artist, sortedBy: [SortDescriptor(\.title)])
    let log = ChangeLog(albums)
    artist.albums[1].title = "Help"  // an equal value
    coalesce {
      artist.albums[1].title = "Helpless"
      artist.albums[1].title = "Help"
    }
    artist.albums[1].isLive = true  // read by nothing
    artist.albums[1].year = 1965  // read by nothing
    #expect(log.count == 0, "\(log.changes)")
    artist.albums[1].title = "Help!"
    #expect(log.count == 1)
    #expect(log.last?.updatedRows == [RowPosition(section: 0, row: 1)])
    #expect(log.failures.isEmpty, "\(log.failures)")
  }

  /// A filter (like a section function, or a comparator of your own) is a closure the
  /// controller cannot look into: any write that reaches the element's watch is an update,
  /// even of an equal value or of a property the filter does not read.
  @Test func withAClosureAnyWriteToTheElementIsAnUpdate() throws {
    let artist = Artist(makeAlbums([("a", 1995), ("b", 1999)]))
    let albums = try RelationController(
      \.albums, of: artist, filter: .matching { $0.year > 1990 })
    let log = ChangeLog(albums)
    artist.albums[1].year = 1999  // an equal value
    #expect(log.count == 1)
    #expect(log.last?.updatedRows == [RowPosition(section: 0, row: 1)])
    artist.albums[0].title = "x"  // read by no function
    #expect(log.count == 2)
    #expect(log.last?.updatedRows == [RowPosition(section: 0, row: 0)])
    artist.albums[0].plain = 3  // not `@Observed`: nothing hears it
    #expect(log.count == 2)
    #expect(log.failures.isEmpty, "\(log.failures)")
  }

  /// `reportsUpdatesOf: .observedAttributes` reports the observed attributes only: the three
  /// cases above report nothing, a move is not flagged, an observed attribute is an update.
  @Test func observedAttributesOnlyReportsTheObservedAttributes() throws {
    let artist = Artist(makeAlbums([("a", 1991), ("b", 1995), ("c", 1970)]))
    let albums = try RelationController(
      \.albums, of: artist, filter: .matching { $0.year > 1900 },
      sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.decade }, observing: [\.title],
      reportsUpdatesOf: .observedAttributes)
    #expect(albums.configuration.reportsUpdatesOf == .observedAttributes)
    let log = ChangeLog(albums)
    artist.albums[1].year = 1992  // filter, sort and section read it; same place
    artist.albums[1].isLive = true  // read by nothing
    #expect(log.count == 0)
    artist.albums[1].year = 1990  // moves before "a"
    #expect(log.last?.movedRows.map(\.changed) == [false])
    artist.albums[1].title = "t"
    #expect(log.last?.updatedRows == [RowPosition(section: 1, row: 0)])
    #expect(log.count == 2)
    #expect(log.failures.isEmpty, "\(log.failures)")
  }

  /// The rule is part of the configuration: reconfiguring it changes what is reported next
  /// (and reports nothing itself when nothing else changes).
  @Test func reconfiguringTheRuleChangesWhatIsReported() throws {
    let artist = Artist([Album("a", title: "Abbey Road"), Album("b", title: "Help")])
    let albums = try RelationController(\.albums, of: artist, sortedBy: [SortDescriptor(\.title)])
    #expect(albums.configuration.reportsUpdatesOf == .everythingRead)
    let log = ChangeLog(albums)
    try albums.reconfigure { $0.reportsUpdatesOf = .observedAttributes }
    #expect(log.count == 0)
    artist.albums[1].title = "Help!"
    #expect(log.count == 0)
    try albums.reconfigure { $0.reportsUpdatesOf = .everythingRead }
    #expect(log.count == 0)
    artist.albums[1].title = "Help!!"
    #expect(log.count == 1)
    #expect(log.last?.updatedRows == [RowPosition(section: 0, row: 1)])
    #expect(log.failures.isEmpty, "\(log.failures)")
  }

  /// The example of the ChangeSets article: `c`'s move, caused by its own sort key, is flagged
  /// changed; `a`, which no write touched, is not mentioned.
  @Test func theChangeSetsArticleExample() throws {
    let (a, b, c, d) = (
      Album("a", year: 1), Album("b", year: 2), Album("c", year: 3), Album("d", year: 4)
    )
    let artist = Artist([a, b, c, d])
    let albums = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], observing: [\.title])
    let log = ChangeLog(albums)
    coalesce {
      artist.remove(at: 1, from: \.albums)
      artist.albums.append(Album("e", year: 0))
      c.year = 5
      d.title = "d!"
    }
    #expect(
      log.last.map { "\($0)" }
        == "ChangeSet(-rows: [0, 1]; +rows: [0, 0]; moves: [0, 2]->[0, 3]*; updates: [0, 3])")
    #expect(albums.names() == [["e", "a", "d", "c"]])
    #expect(log.failures.isEmpty, "\(log.failures)")
  }
}

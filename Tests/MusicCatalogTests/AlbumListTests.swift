import Binding
import CollectionController
import Foundation
import Testing

@testable import MusicCatalog

@Suite struct AlbumListTests {}

private func sampleArtist() -> Artist {
  Artist(
    "Test",
    albums: [
      Album("a", year: 1974, tracks: [Track("1", seconds: 60)]),
      Album("b", year: 1981, tracks: [Track("1", seconds: 120)]),
      Album("c", year: 1984, tracks: [Track("1", seconds: 180)]),
    ])
}

private func byDecade(
  _ artist: Artist, observing: [PartialKeyPath<Album>] = [\.title, \.year, \.duration, \.isLive],
  reportsUpdatesOf: RelationUpdates = .everythingRead
) throws -> AlbumList<Decade> {
  AlbumList(
    "byDecade",
    try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], sectionedBy: { $0.decade },
      observing: observing, reportsUpdatesOf: reportsUpdatesOf))
}

extension AlbumListTests {
  @Test func describesEachKindOfChangeAtItsPosition() throws {
    let artist = sampleArtist()
    let list = try byDecade(artist)
    _ = list.draw()

    artist.albums[2].title = "c2"
    #expect(list.takeChanges() == [["reload row [1, 1]           c2 (title was \"c\")"]])

    artist.albums[1].year = 1985  // passes c: a move, flagged changed
    #expect(list.takeChanges() == [["move   row [1, 0] → [1, 1]  b (year was 1981)"]])

    artist.albums[0].year = 1990  // the 1970s empty, the 1990s appear
    #expect(
      list.takeChanges() == [
        [
          "delete section 0 \"1970s\" with its 1 row: a",
          "insert section 1 \"1990s\" with 1 row: a",
        ]
      ])

    artist.albums.append(Album("d", year: 1982, tracks: []))
    artist.albums.removeFirst()
    #expect(
      list.takeChanges() == [
        ["insert row [0, 0]           d"],
        ["delete section 1 \"1990s\" with its 1 row: a"],
      ])
    #expect(list.takeMismatches().isEmpty)
  }

  @Test func theTableFollowsTheChangeSetsAndMarksWhatChanged() throws {
    let artist = sampleArtist()
    let list = try byDecade(artist)
    coalesce {
      artist.albums[0].year = 1983
      artist.albums[2].tracks[0].seconds = 240
      artist.albums.append(Album("d", year: 1999, tracks: []))
    }
    #expect(list.changeSetCount == 1)
    #expect(list.table.headers == ["1980s", "1990s"])
    #expect(list.table.rows.map { $0.map(\.title) } == [["b", "a", "c"], ["d"]])
    #expect(list.table.row(numbered: 4)?.title == "d")
    #expect(list.table.row(numbered: 5) == nil)
    #expect(
      list.draw() == [
        "  1980s",
        "     1   b                              1981   2:00",
        "     2 + a                              1983   1:00",
        "     3 ~ c                              1984   4:00",
        "  1990s",
        "     4 + d                              1999   0:00",
      ])
    // Drawn once, the marks are cleared.
    #expect(list.draw()[2] == "     2   a                              1983   1:00")
    #expect(list.takeMismatches().isEmpty)
  }

  @Test func aDrawnAttributeThatIsNotObservedIsCaught() throws {
    let artist = sampleArtist()
    // Observed attributes only: by default, a write to an element of a sectioned controller
    // is an update (below).
    let list = try byDecade(artist, observing: [\.title], reportsUpdatesOf: .observedAttributes)
    artist.albums[0].isLive = true  // drawn, not observed: no change set, the row goes stale
    #expect(list.changeSetCount == 0)
    artist.albums[1].title = "b2"  // the next change set is checked against the controller
    #expect(list.takeMismatches().count == 1)
  }

  @Test func byDefaultADrawnAttributeThatIsNotObservedIsAnUpdate() throws {
    let artist = sampleArtist()
    let list = try byDecade(artist, observing: [\.title])
    artist.albums[0].isLive = true  // drawn, not observed: still an update
    #expect(list.changeSetCount == 1)
    artist.albums[1].title = "b2"
    #expect(list.changeSetCount == 2)
    #expect(list.takeMismatches().isEmpty)
  }
}

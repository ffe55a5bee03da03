import Binding
import CollectionController
import Foundation
import Testing

/// The relation controller example of the `CollectionController` landing page (the README's
/// before issue 31), made concrete and checked. The README's own examples are checked snippets:
/// TableViewExamplesTests.swift.
@Suite struct ReadmeExamplesTests {
  final class Artist: ObservableModel {
    let observation = ObservationStorage()
    @Observed var albums: [Album] = []
  }

  final class Album: ObservableModel {
    let observation = ObservationStorage()
    @Observed var title: String
    @Observed var releaseDate: Date
    @Observed var isLive = false
    var decade: Int {
      Calendar(identifier: .gregorian).component(.year, from: releaseDate) / 10 * 10
    }

    init(_ title: String, year: Int) {
      self.title = title
      var components = DateComponents()
      components.year = year
      releaseDate = Calendar(identifier: .gregorian).date(from: components)!  // a valid date
    }
  }

  @Test func relationController() throws {
    let artist = Artist()
    artist.albums = [Album("Kind of Blue", year: 1959), Album("Bitches Brew", year: 1970)]

    let albums = try RelationController(
      \.albums, of: artist,
      filter: .matching { !$0.isLive },  // or .matching(#Predicate<Album> { ... })
      sortedBy: [SortDescriptor(\.releaseDate)],  // stable: ties keep relation order
      sectionedBy: { $0.decade },  // any Hashable & Comparable key
      sectionName: { "\($0)s" },  // the sections' display names
      observing: [\.title])  // attributes whose change is an update

    var log: [String] = []
    let token = albums.onChange { changes in  // keep it: released, it ends the handler
      log.append(
        "sections +\(changes.insertedSections.count) rows +\(changes.insertedRows.count)")
    }
    #expect(albums.sections.map(\.key) == [1950, 1970])
    #expect(albums.sections.map(\.name) == ["1950s", "1970s"])
    #expect(albums.object(at: RowPosition(section: 1, row: 0)).title == "Bitches Brew")

    artist.albums.append(Album("Tutu", year: 1986))  // one write, one change set
    #expect(log == ["sections +1 rows +0"])  // a new section brings its row
    #expect(albums.sections.count == 3)
    token.cancel()
  }
}

import Binding
import CollectionController
import Foundation
import Observation
import Testing

/// A relation controller is `Observable`: Swift Observation (a SwiftUI `List` over
/// `controller.sections`, or `withObservationTracking`) hears every change set, while the same
/// controller keeps handing change sets to UIKit-style receivers.
@Suite struct SwiftObservationTests {
  /// Arms `withObservationTracking` on a read, as SwiftUI does on each render, and counts how
  /// often a tracking fired.
  final class Tracking: Sendable {
    let fired = _Lock(0)
    func arm(_ read: @escaping () -> Void) {
      withObservationTracking {
        read()
      } onChange: { [fired] in
        fired.withLock { $0 += 1 }
      }
    }
    var count: Int { fired.withLock { $0 } }
  }

  @Test func everyChangeSetIsSeenByWithObservationTracking() throws {
    let artist = Artist(makeAlbums([("a", 1990), ("b", 1980), ("c", 1985)]))
    let albums = try RelationController(
      \.albums, of: artist, filter: .matching { !$0.isLive }, sortedBy: [SortDescriptor(\.year)],
      sectionedBy: { $0.decade })
    var handed = 0
    let token = albums.onChange { _ in handed += 1 }
    let tracking = Tracking()
    tracking.arm { _ = albums.sections }
    artist.albums[0].year = 1970  // a move: one change set
    #expect(tracking.count == 1)
    #expect(handed == 1)  // the UIKit-style receiver still gets its change set
    #expect(albums.sections.map { $0.objects.map(\.name) } == [["a"], ["b", "c"]])

    // Tracking fires once per arming (SwiftUI re-arms when it re-renders).
    artist.albums[1].year = 1960
    #expect(tracking.count == 1)
    tracking.arm { _ = albums.count }
    artist.insert(Album("d", year: 2001), at: 0, into: \.albums)
    #expect(tracking.count == 2)

    // No visible change, no change set, nothing to tell.
    tracking.arm { _ = albums.object(at: RowPosition(section: 0, row: 0)) }
    artist.albums[0].isLive = true  // d leaves: visible
    #expect(tracking.count == 3)
    tracking.arm { _ = albums.isEmpty }
    artist.albums[0].year = 1500  // d is filtered out: nothing visible changes
    #expect(tracking.count == 3)
    // A write to a shown element of a controller with a filter and sections is an update,
    // even of an attribute that is not observed (see `UpdateReportingTests`): told.
    artist.albums[1].title = "shown"
    #expect(tracking.count == 4)
    tracking.arm { _ = albums.isEmpty }
    try albums.reconfigure { $0.sectionedBy = { $0.year / 100 } }  // one section: visible
    #expect(tracking.count == 5)
    #expect(handed == 6)
    token.cancel()
  }

  /// Every way of reading the content registers the read.
  @Test(arguments: [
    "sections", "section(at:)", "numberOfSections", "numberOfObjects(inSection:)", "count",
    "isEmpty", "objects", "object(at:)", "position(of:)", "snapshot",
  ])
  func everyContentReadIsTracked(_ read: String) throws {
    let artist = Artist(makeAlbums([("a", 1), ("b", 2)]))
    let albums = try RelationController(\.albums, of: artist, sortedBy: [SortDescriptor(\.year)])
    let first = artist.albums[0]
    let tracking = Tracking()
    tracking.arm {
      switch read {
      case "sections": _ = albums.sections
      case "section(at:)": _ = albums.section(at: 0)
      case "numberOfSections": _ = albums.numberOfSections
      case "numberOfObjects(inSection:)": _ = albums.numberOfObjects(inSection: 0)
      case "count": _ = albums.count
      case "isEmpty": _ = albums.isEmpty
      case "objects": _ = albums.objects
      case "object(at:)": _ = albums.object(at: RowPosition(section: 0, row: 0))
      case "position(of:)": _ = albums.position(of: first)
      default: _ = albums.snapshot
      }
    }
    first.year = 3
    #expect(tracking.count == 1)
  }
}

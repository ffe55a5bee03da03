import Binding
import Foundation
import TestSupport
import Testing

@testable import CollectionController

/// A transaction finds its touched elements by a scan while it has few (up to
/// `_Work._scanLimit`) and through a dictionary beyond: both sides of the limit give one
/// change set per transaction that replays to the content, with each element mentioned once.
@Suite struct TransactionSizeTests {
  @Test(arguments: [1, 7, 8, 9, 10, 20])
  func transactionsOfEverySizeReportEachElementOnce(_ size: Int) throws {
    var rng = SplitMix64(seed: UInt64(size))
    let albums = (0..<40).map { Album("\($0)", year: 1950 + Int(rng.next() % 30)) }
    let artist = Artist(albums)
    let controller = try RelationController(
      \.albums, of: artist, sortedBy: [SortDescriptor(\.year)], observing: [\.title],
      delivery: .synchronous)
    var shown = [controller.objects]
    var changeSets: [RelationChangeSet<Album>] = []
    let token = controller.onChange { changeSets.append($0) }
    for round in 0..<20 {
      // `size` distinct albums, each written twice (its year) and renamed once.
      var picked: [Album] = []
      while picked.count < size {
        let album = albums[Int(rng.next() % UInt64(albums.count))]
        if !picked.contains(where: { $0 === album }) { picked.append(album) }
      }
      coalesce {
        for album in picked { album.year = 1950 + Int(rng.next() % 30) }
        for album in picked { album.title = "round \(round)" }
        for album in picked { album.year = 1950 + Int(rng.next() % 30) }
      }
      let expected = artist.albums.sorted(using: SortDescriptor(\.year))
      try #require(controller.objects.map(\.name) == expected.map(\.name), "round \(round)")
      try #require(changeSets.count == round + 1, "one change set per transaction")
      let changes = changeSets[round]
      let mentioned = changes.movedElements + changes.updatedElements
      #expect(
        Set(mentioned.map(ObjectIdentifier.init)).count == mentioned.count,
        "an element mentioned twice in round \(round)")
      #expect(mentioned.count == size, "every renamed album is moved or updated")
      changes.apply(to: &shown)
      #expect(shown.flatMap { $0 }.map(\.name) == expected.map(\.name), "replay, round \(round)")
    }
    token.cancel()
  }
}

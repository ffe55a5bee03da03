import Binding
import Testing

@testable import CollectionController

/// Debug builds check who touches the drainer's state (see RelationController+State.swift):
/// the transaction under way and the unlocked reads of the content belong to the drainer only.
@Suite struct DrainerConfinementTests {
  #if DEBUG
    @Test func theDrainersStateTrapsOnAThreadThatIsNotDraining() async {
      await #expect(processExitsWith: .failure) {
        let artist = Artist()
        let albums = try RelationController(\.albums, of: artist)
        _ = albums._work  // no drain runs: this thread is not the drainer
      }
      await #expect(processExitsWith: .failure) {
        let artist = Artist()
        let albums = try RelationController(\.albums, of: artist)
        _ = albums._state.index.count
      }
    }
  #endif

  /// The drainer may, and every thread is the drainer for the length of its drain only: a
  /// receiver (running in the drain) reads the drainer's state, a later read outside traps in
  /// the test above.
  @Test func theDrainerReadsItsStateDuringItsDrain() throws {
    let artist = Artist()
    let albums = try RelationController(\.albums, of: artist)
    var counts: [Int] = []
    let token = albums.onChange { _ in counts.append(albums._state.index.count) }
    artist.albums.append(Album("A", year: 1990))
    artist.albums.append(Album("B", year: 1991))
    token.cancel()
    #expect(counts == [1, 2])
  }
}

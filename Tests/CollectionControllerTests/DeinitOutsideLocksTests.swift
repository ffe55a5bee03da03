import Binding
import CollectionController
import Dispatch
import Foundation
import Testing

/// No user `deinit` runs under one of the package's locks: a relation controller that drops the
/// last reference to an element (removed, deleted, replaced, or when the controller goes) or to
/// what its functions and handlers captured, drops it after its lock is released. An element
/// whose `deinit` writes a model would otherwise run with a lock held, and deadlock if that
/// write reaches the same controller.
///
/// Debug builds count the locks a thread holds (`_locksHeldOnThisThread()`); release builds do
/// not, so there the tests check only that every element died and its write was heard.
@Suite struct ControllerDeinitOutsideLocksTests {
  /// What the elements' `deinit`s recorded.
  final class Log: @unchecked Sendable {
    // `@unchecked Sendable`: written only by `deinit`s that run on the test's thread, or on a
    // queue the test waits for.
    var locksHeld: [Int?] = []
    let echo = Echo()

    /// Checks that `count` elements died, none of them under a lock, and that each one's write
    /// reached the model it wrote.
    func expectDeaths(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
      #expect(locksHeld.count == count, sourceLocation: sourceLocation)
      #expect(echo.count == count, sourceLocation: sourceLocation)
      for held in locksHeld {
        if let held {
          #expect(held == 0, "a deinit ran under a lock", sourceLocation: sourceLocation)
        }
      }
    }
  }

  /// The model an element's `deinit` writes.
  final class Echo: ObservableModel {
    let observation = ObservationStorage()
    @Observed var count = 0
  }

  /// An element whose `deinit` writes `echo` and the owner it belonged to.
  final class Song: ObservableModel {
    let observation = ObservationStorage()
    @Observed var rank: Int
    @Observed var title = ""
    let log: Log
    weak var owner: Playlist?

    init(_ rank: Int, _ log: Log, owner: Playlist? = nil) {
      self.rank = rank
      self.log = log
      self.owner = owner
    }

    deinit {
      log.locksHeld.append(_locksHeldOnThisThread())
      log.echo.count += 1
      owner?.revision += 1
    }
  }

  final class Playlist: ObservableModel {
    let observation = ObservationStorage()
    @Observed var songs: [Song] = []
    @Observed var revision = 0
  }

  typealias Controller = RelationController<Song, Unsectioned>

  static func makeController(_ playlist: Playlist) throws -> Controller {
    try RelationController(
      \.songs, of: playlist, filter: .matching { $0.rank >= 0 },
      sortedBy: [SortDescriptor(\.rank)], observing: [\.title])
  }

  @Test func elementsRemovedOneByOne() throws {
    let log = Log()
    let playlist = Playlist()
    playlist.songs = (0..<6).map { Song($0, log, owner: playlist) }
    let controller = try Self.makeController(playlist)
    var heard = 0
    let token = controller.onChange { _ in heard += 1 }
    playlist.songs.removeLast()
    playlist.songs.remove(at: 0)
    log.expectDeaths(2)
    playlist.songs = Array(playlist.songs.reversed().dropFirst())
    log.expectDeaths(3)
    coalesce {
      playlist.songs.removeFirst()
      playlist.songs[0].title = "edited"
      playlist.songs.removeAll()
    }
    log.expectDeaths(6)
    #expect(heard == 4)
    #expect(controller.count == 0)
    token.cancel()
  }

  @Test func elementsDeletedWhileTheControllerHoldsThem() throws {
    let log = Log()
    let playlist = Playlist()
    playlist.songs = (0..<4).map { Song($0, log, owner: playlist) }
    let controller = try Self.makeController(playlist)
    let token = controller.onChange { _ in }
    do {
      let songs = playlist.songs
      playlist.songs = []  // the controller and `songs` hold them
      withExtendedLifetime(songs) {}
    }
    log.expectDeaths(4)
    #expect(controller.count == 0)
    token.cancel()
  }

  @Test func elementsReleasedWithTheController() throws {
    let log = Log()
    var playlist: Playlist? = Playlist()
    playlist?.songs = (0..<4).map { Song($0, log) }
    var controller = try Self.makeController(playlist!)  // just made
    let token = controller.onChange { _ in }
    playlist = nil  // the controller's members are now the last references
    token.cancel()
    controller = try Self.makeController(Playlist())
    log.expectDeaths(4)
    #expect(controller.count == 0)
  }

  @Test func elementsDeletedByAnnouncement() throws {
    let log = Log()
    let playlist = Playlist()
    do {
      let songs = (0..<3).map { Song($0, log, owner: playlist) }
      playlist.songs = songs
    }
    let controller = try Self.makeController(playlist)
    let token = controller.onChange { _ in }
    do {
      let first = playlist.songs[0]
      playlist.songs[1].announceDeletion()  // still in the relation: the controller drops it
      playlist.songs.remove(at: 0)
      first.announceDeletion()
    }
    playlist.songs.removeAll()
    log.expectDeaths(3)
    token.cancel()
  }

  @Test func capturesReleasedByReconfigureAndCancel() throws {
    let log = Log()
    let playlist = Playlist()
    playlist.songs = [Song(0, log)]
    let controller = try Self.makeController(playlist)
    do {
      let captured = Song(-1, log)
      try controller.reconfigure { $0.filter = .matching { _ in captured.rank < 0 } }
      let handled = Song(-2, log)
      let token = controller.onChange { _ in _ = handled }
      try controller.reconfigure { $0.filter = nil }
      token.cancel()
    }
    log.expectDeaths(2)
    playlist.songs = []
    log.expectDeaths(3)
  }

  @Test func elementsRemovedWithQueuedDelivery() throws {
    let log = Log()
    let queue = DispatchQueue(label: "ControllerDeinitOutsideLocksTests")
    let playlist = Playlist()
    playlist.songs = (0..<8).map { Song($0, log) }
    let controller = try RelationController(
      \.songs, of: playlist, sortedBy: [SortDescriptor(\.rank)], delivery: .queue(queue))
    let token = controller.onChange { _ in }
    queue.sync {
      for _ in 0..<4 { playlist.songs.removeLast() }
      playlist.songs.reverse()
      playlist.songs.removeAll()
    }
    queue.sync {}
    log.expectDeaths(8)
    token.cancel()
  }
}

import Binding
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CollectionController

/// Coalescing is per thread for a relation controller as for Binding: a write on one thread
/// never joins, closes or splits a `coalesce` block open on another; each thread's write, or
/// outermost block, is one change set, delivered (synchronously) before that write or block
/// returns on its own thread.
@Suite struct CrossThreadTransactionTests {
  /// What a synchronous controller delivered, and on which thread.
  final class Deliveries: Sendable {
    let log = Mutex<[(thread: String, updated: [String])]>([])
    /// The test's threads by `pthread_self()`.
    let names = Mutex<[UInt: String]>([:])

    /// Names the calling thread.
    func name(_ name: String) {
      names.withLock { $0[UInt(bitPattern: Int(bitPattern: pthread_self()))] = name }
    }

    func record(_ changes: RelationChangeSet<Album>) {
      let key = UInt(bitPattern: Int(bitPattern: pthread_self()))
      let name = names.withLock { $0[key] } ?? "?"
      let updated = changes.updatedElements.map(\.name).sorted()
      log.withLock { $0.append((name, updated)) }
    }

    var all: [(thread: String, updated: [String])] { log.withLock { $0 } }
  }

  /// Runs `a` and `b` on two threads, named `A` and `B` in `deliveries`, and waits for both.
  func onTwoThreads(
    _ deliveries: Deliveries, _ a: @escaping @Sendable () -> Void,
    _ b: @escaping @Sendable () -> Void
  ) {
    let group = DispatchGroup()
    for (name, body) in [("A", a), ("B", b)] {
      group.enter()
      Thread {
        deliveries.name(name)
        body()
        group.leave()
      }.start()
    }
    group.wait()
  }

  func makeController() throws -> (Artist, RelationController<Album, Unsectioned>, Deliveries) {
    let artist = Artist(makeAlbums([("e0", 1), ("e1", 2), ("e2", 3)]))
    let controller = try RelationController(
      \.albums, of: artist, observing: [\.title], delivery: .synchronous)
    return (artist, controller, Deliveries())
  }

  /// Thread A is inside `coalesce { e0; e1 }` when thread B writes e2 with no block: B's write
  /// is its own change set, delivered on B before its write returns; A's block is one.
  @Test func aWriteOnAnotherThreadDoesNotJoinAnOpenBlock() throws {
    let (artist, controller, deliveries) = try makeController()
    let token = controller.onChange { deliveries.record($0) }
    let albums = Handed(value: artist.albums)
    let aWrote = DispatchSemaphore(value: 0)
    let bWrote = DispatchSemaphore(value: 0)
    let seenByB = Mutex<[(thread: String, updated: [String])]>([])
    onTwoThreads(
      deliveries,
      {
        coalesce {
          albums.value[0].title = "a0"
          aWrote.signal()
          bWrote.wait()
          albums.value[1].title = "a1"
        }
      },
      {
        aWrote.wait()
        albums.value[2].title = "b2"
        seenByB.withLock { $0 = deliveries.all }  // as B's write returned
        bWrote.signal()
      })
    #expect(seenByB.withLock { $0.map(\.updated) } == [["e2"]])
    let all = deliveries.all
    #expect(all.map(\.thread) == ["B", "A"])
    #expect(all.map(\.updated) == [["e2"], ["e0", "e1"]])
    token.cancel()
  }

  /// Two threads inside their own blocks, interleaved: B's block writes, A's block writes,
  /// B's block ends, A's writes again and ends. Each block is one change set with its own
  /// writes, delivered on its thread as it ends.
  @Test func interleavedBlocksOnTwoThreadsStayApart() throws {
    let (artist, controller, deliveries) = try makeController()
    let token = controller.onChange { deliveries.record($0) }
    let albums = Handed(value: artist.albums)
    let bWrote = DispatchSemaphore(value: 0)
    let aWrote = DispatchSemaphore(value: 0)
    let bEnded = DispatchSemaphore(value: 0)
    onTwoThreads(
      deliveries,
      {
        bWrote.wait()
        coalesce {
          albums.value[0].title = "a0"
          aWrote.signal()
          bEnded.wait()
          albums.value[1].title = "a1"
        }
      },
      {
        coalesce {
          albums.value[2].title = "b2"
          bWrote.signal()
          aWrote.wait()
        }
        bEnded.signal()
      })
    let all = deliveries.all
    #expect(all.map(\.thread) == ["B", "A"])
    #expect(all.map(\.updated) == [["e2"], ["e0", "e1"]])
    token.cancel()
  }
}

import Binding
import Foundation
import Synchronization
import TestSupport
import Testing

/// Bulk watches (package access), which relation controllers use for their elements; lone
/// watches, kept in the element's own observation word, in particular.
@Suite struct WatchTests {}

/// Records what its watches report.
private final class WatchLog: _WatchReceiver {
  let sink = _WatchSink()
  private let events = Mutex<[(id: ObjectIdentifier, deleted: Bool)]>([])

  init() { sink.attach(self) }

  func _watchFired(_ id: ObjectIdentifier, elementDeleted: Bool) {
    events.withLock { $0.append((id, elementDeleted)) }
  }

  var count: Int { events.withLock { $0.count } }
  var deletions: Int { events.withLock { $0.count { $0.deleted } } }
}

extension WatchTests {
  @Test func aWatchOfWhatOnlyTheElementReadsAllocatesNoState() throws {
    let user = User(name: "Ada")
    let log = WatchLog()
    let handle = try #require(_watch(user, sink: log.sink, replacing: nil) { _ = user.name })
    #expect(handle.isSame(as: .lone))
    #expect(!user._hasObservationState)
    user.name = "Grace"
    user.age = 3  // the object is watched as a whole
    #expect(log.count == 2)
    handle.end(of: user, sink: log.sink)
    user.name = "Ada"
    #expect(log.count == 2)
    #expect(!user._hasObservationState)
  }

  @Test func anotherObserverTakesTheLoneWatchOver() throws {
    let user = User(name: "Ada")
    let log = WatchLog()
    let handle = try #require(_watch(user, sink: log.sink, replacing: nil) { _ = user.name })
    var heard: [String] = []
    let token = user.observe(\.name, delivery: .synchronous) { heard.append($0.newValue) }
    #expect(user._hasObservationState)
    user.name = "Grace"
    #expect(heard == ["Grace"])
    #expect(log.count == 1)
    // Still the same lone watch, now kept by the state: re-watching keeps it, ending ends it.
    let again = _watch(user, sink: log.sink, replacing: handle) { _ = user.name }
    #expect(again?.isSame(as: handle) == true)
    handle.end(of: user, sink: log.sink)
    user.name = "Ada"
    #expect(log.count == 1)
    #expect(heard == ["Grace", "Ada"])
    token.cancel()
  }

  @Test func aDeletionReachesALoneWatch() throws {
    let user = User(name: "Ada")
    let log = WatchLog()
    _ = try #require(_watch(user, sink: log.sink, replacing: nil) { _ = user.name })
    user.announceDeletion()
    #expect(log.deletions == 1)
    // A deleted element is not watched again.
    #expect(_watch(user, sink: log.sink, replacing: nil) { _ = user.name } == nil)
  }

  @Test func readingAnotherObjectReplacesTheLoneWatchWithAListedOne() throws {
    let user = User(name: "Ada")
    let address = Address(city: "London")
    user.address = address
    let log = WatchLog()
    let lone = try #require(_watch(user, sink: log.sink, replacing: nil) { _ = user.name })
    let full = try #require(
      _watch(user, sink: log.sink, replacing: lone) { _ = user.address?.city })
    #expect(!full.isSame(as: lone))
    address.city = "Paris"
    #expect(log.count == 1)
    user.name = "Grace"  // the element itself is still watched, by the new watch only
    #expect(log.count == 2)
    // Back to reading only the element: a lone watch cannot return (the state exists), so a
    // listed watch of the element alone takes over, and the address is no longer watched.
    let back = try #require(_watch(user, sink: log.sink, replacing: full) { _ = user.name })
    address.city = "Rome"
    #expect(log.count == 2)
    back.end(of: user, sink: log.sink)
    user.name = "Ada"
    #expect(log.count == 2)
  }

  @Test func theElementReleasesTheSinkOfItsLoneWatchWhenItDies() throws {
    weak var weakSink: _WatchSink?
    do {
      let log = WatchLog()
      weakSink = log.sink
      let user = User(name: "Ada")
      _ = try #require(_watch(user, sink: log.sink, replacing: nil) { _ = user.name })
    }
    #expect(weakSink == nil)
  }

  @Test func twoSinksWatchingOneElementBothHear() throws {
    let user = User(name: "Ada")
    let first = WatchLog()
    let second = WatchLog()
    let one = try #require(_watch(user, sink: first.sink, replacing: nil) { _ = user.name })
    let two = try #require(_watch(user, sink: second.sink, replacing: nil) { _ = user.name })
    #expect(one.isSame(as: .lone))
    #expect(!two.isSame(as: .lone))
    user.name = "Grace"
    #expect(first.count == 1)
    #expect(second.count == 1)
    one.end(of: user, sink: first.sink)
    user.name = "Ada"
    #expect(first.count == 1)
    #expect(second.count == 2)
  }

  @Test func loneWatchesSurviveWritesAndTakeoversOnManyThreads() async {
    // Thread t writes `age` of the users it owns (t, t + 4, ...: writes and registrations of
    // one property stay on one thread, as the threading contract asks; a registration takes a
    // lone watch over) while every thread starts and ends watches of all of them (reading
    // `name`, which nobody writes). A write must never
    // reach a sink that was released (run under ThreadSanitizer and AddressSanitizer in CI).
    let threads = 4
    let users = _Transfer((0..<64).map { User(name: "\($0)") })
    let log = WatchLog()
    let sink = _Transfer(log.sink)
    await withTaskGroup(of: Void.self) { group in
      for thread in 0..<threads {
        group.addTask {
          await onNewThread {
            for round in 0..<4_000 {
              let index = (round &* 7 &+ thread) % users.value.count
              let user = users.value[index]
              switch round % 3 {
              case 0:
                let own = users.value[(round % (users.value.count / threads)) * threads + thread]
                own.age = round
              case 1:
                let handle = _watch(user, sink: sink.value, replacing: nil) { _ = user.name }
                handle?.end(of: user, sink: sink.value)
              default:
                // Registrations of one property are serialised like its writes: owned users.
                let own = users.value[(round % (users.value.count / threads)) * threads + thread]
                let token = own.observe(\.nickname, delivery: .synchronous) { _ in }
                token.cancel()
              }
            }
          }
        }
      }
    }
    // Every watch ended, whether it stayed lone or a registration took it over: nothing more
    // is heard.
    let settled = log.count
    for user in users.value { user.age = -1 }
    #expect(log.count == settled)
  }

  @Test func aWriteRacingATakeoverReachesTheWatch() async {
    // One thread writes each element while another registers an observer of it, which takes
    // the lone watch over: the write must reach the watch whichever comes first (a write that
    // found the lone watch gone used to be dropped). Lock-step, element by element: each step
    // is a hand-over between two threads, a scheduler tick on a busy machine, so the default is
    // 2,000 elements and `WATCH_RACE_ELEMENTS` sets more (CI's long step in `.ci/run`: 20,000).
    let count = getenv("WATCH_RACE_ELEMENTS").flatMap { Int(String(cString: $0)) } ?? 2_000
    let users = _Transfer((0..<count).map { User(name: "\($0)") })
    let log = WatchLog()
    for user in users.value {
      _ = _watch(user, sink: log.sink, replacing: nil) { _ = user.name }
    }
    let phase = AtomicCounter()
    let tokens = LockedList<ObservationToken>()
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        await onNewThread {
          for index in 0..<count {
            spin { phase.value >= 2 * index + 1 }
            users.value[index].age = 1
            phase.increment()
          }
        }
      }
      group.addTask {
        await onNewThread {
          for index in 0..<count {
            spin { phase.value >= 2 * index }
            phase.increment()
            let token = users.value[index].observe(\.name, delivery: .synchronous) { _ in }
            tokens.append(token)
          }
        }
      }
    }
    #expect(log.count == count, "\(count - log.count) writes did not reach their watch")
    for token in tokens.values { token.cancel() }
  }
}

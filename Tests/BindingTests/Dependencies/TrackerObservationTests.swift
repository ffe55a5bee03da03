import Binding
import Dispatch
import Observation
import TestSupport
import Testing

/// A dependency tracker is `Observable`: a SwiftUI view (or `withObservationTracking`) that reads
/// it hears additions, removals and every delivered batch.
@Suite struct TrackerObservationTests {
  @Test func swiftObservationHearsTheSetAndEveryBatch() {
    let tracker = DependencyTracker(delivery: .synchronous) { _ in }
    let user = User()
    let other = User()
    let fired = _Lock(0)
    func arm(_ read: @escaping () -> Void) {
      withObservationTracking {
        read()
      } onChange: {
        fired.withLock { $0 += 1 }
      }
    }
    arm { _ = tracker.count }
    tracker.add(user)
    #expect(fired.withLock { $0 } == 1)
    arm { _ = tracker.dependencies }
    user.name = "Ada"  // a batch: one update
    #expect(fired.withLock { $0 } == 2)
    arm { _ = tracker.contains(user) }
    tracker.add(user)  // already there: nothing changed
    other.name = "not tracked"
    #expect(fired.withLock { $0 } == 2)
    tracker.remove(user)
    #expect(fired.withLock { $0 } == 3)
    arm { _ = tracker.isEmpty }
    tracker.add(other)
    #expect(fired.withLock { $0 } == 4)
    arm { _ = tracker.count }
    other.announceDeletion()  // a batch: one deletion
    #expect(fired.withLock { $0 } == 5)
    #expect(tracker.isEmpty)
  }

  /// `removeAll()` tells Observation; a batch that delivers nothing (the update of a dependency
  /// removed while its batch waited on the queue) tells it nothing.
  @Test func aBatchThatDeliversNothingTellsNothing() {
    let queue = DispatchQueue(label: "TrackerObservationTests")
    let events = _Lock(0)
    let tracker = DependencyTracker(delivery: .queue(queue)) { _ in events.withLock { $0 += 1 } }
    let user = User()
    tracker.add(user)
    let fired = _Lock(0)
    func arm() {
      withObservationTracking {
        _ = tracker.count
      } onChange: {
        fired.withLock { $0 += 1 }
      }
    }
    let pause = QueuePause(queue)
    pause.toggle()  // the batch waits
    user.name = "Ada"
    arm()
    tracker.remove(user)  // tells Observation (fired 1); the queued update is dropped
    arm()
    pause.finish()  // the batch delivers nothing
    #expect(events.withLock { $0 } == 0)
    #expect(fired.withLock { $0 } == 1)  // the second arming is still waiting
    tracker.add(user)  // it fires now
    #expect(fired.withLock { $0 } == 2)
    arm()
    tracker.removeAll()
    #expect(fired.withLock { $0 } == 3)
    #expect(tracker.isEmpty)
  }
}

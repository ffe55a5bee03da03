import Binding
import Observation
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
}

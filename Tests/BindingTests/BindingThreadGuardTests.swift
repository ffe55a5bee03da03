import Binding
import Dispatch
import Foundation
import Synchronization
import Testing

/// A leaf and its holder: a binding to `\.child.x` is applied by writes of either.
final class Leaf: ObservableModel {
  let observation = ObservationStorage()
  @Observed var x = 0
}

final class LeafHolder: ObservableModel {
  let observation = ObservationStorage()
  @Observed var child = Leaf()
}

/// A receiver that logs each value it is set to, and whether the set ran inside another set on
/// the same thread.
final class NestingLog: BindingReceiver {
  private let sets = Mutex<(log: [(value: Int, nested: Bool)], depths: [ObjectIdentifier: Int])>(
    ([], [:]))
  /// Runs inside each set (on the setting thread), after it was logged.
  var onSet: (Int) -> Void = { _ in }

  var value: Int {
    get { sets.withLock { $0.log.last?.value ?? 0 } }
    set {
      let thread = ObjectIdentifier(Thread.current)
      sets.withLock { sets in
        let depth = sets.depths[thread, default: 0]
        sets.log.append((newValue, depth > 0))
        sets.depths[thread] = depth + 1
      }
      onSet(newValue)
      sets.withLock { $0.depths[thread, default: 1] -= 1 }
    }
  }

  var log: [(value: Int, nested: Bool)] { sets.withLock { $0.log } }
}

extension BindingReentrancyTests {
  /// Two threads apply one binding at once (its path reads two objects, one written on each):
  /// each thread guards its own application, so a value that comes back to the binding on the
  /// second thread is applied after that thread's set returns, not inside it. (With one owner
  /// per binding, the second thread applied it unguarded, and the value came back nested.)
  @Test func twoThreadsApplyingOneBindingEachGuardTheirOwn() {
    let holder = LeafHolder()
    let leaf = Leaf()
    let receiver = NestingLog()
    receiver.bind(\.value, to: holder, \.child.x)
    let firstInside = DispatchSemaphore(value: 0)
    let secondDone = DispatchSemaphore(value: 0)
    receiver.onSet = { value in
      if value == 1 {
        // The first thread stays inside its application until the second one is done.
        firstInside.signal()
        _ = secondDone.wait(timeout: .now() + 10)
      } else if value == 2 {
        leaf.x = 3  // comes back to the binding, on the second thread
      }
    }
    leaf.x = 1
    let models = Handoff((holder, leaf))
    let finished = DispatchGroup()
    // Threads of their own: a dispatch queue may not start a second worker while the first
    // waits on a semaphore.
    finished.enter()
    Thread.detachNewThread {
      models.value.0.child = models.value.1
      finished.leave()
    }
    finished.enter()
    Thread.detachNewThread {
      _ = firstInside.wait(timeout: .now() + 10)
      models.value.1.x = 2
      secondDone.signal()
      finished.leave()
    }
    #expect(finished.wait(timeout: .now() + 20) == .success)
    let log = receiver.log
    #expect(log.map(\.value).sorted() == [1, 2, 3])
    #expect(!log.contains { $0.nested }, "\(log)")
  }
}

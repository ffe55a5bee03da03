import Binding
import Foundation
import TestSupport
import Testing

/// Key-path tracking is per thread: a thread resolving a key path records only its own reads,
/// whatever other threads read meanwhile, and a thread that exits leaves nothing behind for
/// the next one.
@Suite struct PerThreadTrackingTests {}

/// A model whose computed property can hold its reader inside the evaluation (the reader is
/// then tracking) until the test lets it go.
private final class Gate: ObservableModel {
  let observation = ObservationStorage()
  @Observed var a = 0
  /// Set by the test; the next read of `slow` blocks once.
  let blocksNextRead = _Lock(false)
  let entered = DispatchSemaphore(value: 0)
  let proceed = DispatchSemaphore(value: 0)

  var slow: Int {
    let blocks = blocksNextRead.withLock { blocks in
      defer { blocks = false }
      return blocks
    }
    if blocks {
      entered.signal()
      proceed.wait()
    }
    return a
  }
}

/// Runs `body` on a new thread and returns at once; `done` is signalled when it has finished.
private func startThread(_ done: DispatchSemaphore, _ body: @escaping @Sendable () -> Void) {
  Thread {
    body()
    done.signal()
  }.start()
}

extension PerThreadTrackingTests {
  @Test func anotherThreadsReadsDuringARegistrationAreNotRecorded() {
    let gate = Handoff(Gate())
    let user = Handoff(User())
    let heard = LockedList<Int>()
    let token = _Lock<ObservationToken?>(nil)
    gate.value.blocksNextRead.withLock { $0 = true }

    // Thread A registers, and stops inside its key path's evaluation (it is tracking).
    let aDone = DispatchSemaphore(value: 0)
    startThread(aDone) {
      // Every set: a write of anything it had recorded would be heard, equal value or not.
      let registration = gate.value.observe(\.slow, options: .everySet) {
        heard.append($0.newValue)
      }
      token.withLock { $0 = registration }
    }
    gate.value.entered.wait()

    // Meanwhile thread B reads properties of another object, untracked, and resolves a key
    // path of its own; then it exits.
    let bDone = DispatchSemaphore(value: 0)
    let bHeard = LockedList<String>()
    startThread(bDone) {
      _ = user.value.name
      _ = user.value.age
      let registration = user.value.observe(\.displayName) { bHeard.append($0.newValue) }
      user.value.useNickname = true
      user.value.nickname = "Bo"
      registration.cancel()
    }
    bDone.wait()
    gate.value.proceed.signal()
    aDone.wait()

    // A's registration read only `a`: B's reads were B's. Writes of what B read reach it not.
    user.value.name = "Ann"
    user.value.age = 3
    gate.value.a = 5
    #expect(heard.values == [5])
    // B's registration followed its own reads: once `displayName` read the nickname, a write of
    // the nickname reached it.
    #expect(bHeard.values == ["Bo"])

    // A new thread (A and B have exited) writes: its state is made afresh.
    let cDone = DispatchSemaphore(value: 0)
    startThread(cDone) { gate.value.a = 6 }
    cDone.wait()
    #expect(heard.values == [5, 6])
    token.withLock { $0?.cancel() }
  }
}

import Binding
import Foundation
import Synchronization
import TestSupport

/// Hands a non-`Sendable` value (a model, a target) to another thread.
///
/// Safe in these tests: ownership passes to one thread at a time, and the sender awaits the
/// receiving thread's end (or a delivery that happens after it) before touching the value again.
struct Handoff<Value>: @unchecked Sendable {  // Safe: one owning thread at a time (see above).
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// A counter any thread may bump.
final class AtomicCounter: Sendable {
  private let storage = Atomic<Int>(0)
  var value: Int { storage.load(ordering: .acquiring) }
  func increment() { storage.add(1, ordering: .acquiringAndReleasing) }
}

/// A list any thread may append to.
final class LockedList<Element: Sendable>: Sendable {
  private let storage = _Lock<[Element]>([])
  var values: [Element] { storage.withLock { $0 } }
  var count: Int { storage.withLock { $0.count } }
  func append(_ element: Element) { storage.withLock { $0.append(element) } }
}

/// Waits, up to `timeout`, until `condition` holds (polling, so that queued deliveries run);
/// returns whether it did. A bounded wait, never an assertion about timing.
func eventually(
  timeout: Duration = .seconds(20),
  isolation: isolated (any Actor)? = #isolation,
  _ condition: () -> Bool
) async -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: timeout)
  while !condition() {
    if clock.now >= deadline { return false }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return true
}

/// An identifier of the calling thread.
func currentThreadID() -> UInt {
  #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
  #else
    UInt(pthread_self())
  #endif
}

/// Spins until `condition` holds: hot for the first thousand checks, so that two threads
/// running at once meet within a few instructions, then yielding the core between checks, so
/// that on a busy machine a spinning thread neither keeps the thread it waits for off the
/// cores nor starves the tests running beside it.
func spin(until condition: () -> Bool) {
  var checks = 0
  while !condition() {
    checks += 1
    if checks > 1_000 { sched_yield() }
  }
}

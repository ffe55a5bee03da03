import Foundation

/// The dependency tracker's lock: state behind a mutex, with the `withLock`-only shape of
/// `Synchronization.Mutex`, so that it can be swapped for it later.
///
/// NOTE: This is not `Synchronization.Mutex` because on Linux `Mutex` locks with futex system
/// calls that ThreadSanitizer does not see, so it reports every access the lock protects as a
/// race (a ten-line program incrementing a `Mutex<[Int: Int]>` from four threads shows it);
/// `NSLock` is a pthread mutex, which ThreadSanitizer understands. Binding's own lock made the
/// same move for the same reason.
final class _TrackerLock<State>: @unchecked Sendable {
  // Safe: `state` is only touched inside `withLock`, with `lock` held.
  private let lock = NSLock()
  private var state: State

  init(_ state: State) { self.state = state }

  /// Runs `body` with exclusive access to the state. `body` must not call out to user code.
  func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}

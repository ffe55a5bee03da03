import Foundation

/// State behind a lock, for registry state that holds registry objects.
///
/// NOTE: This is not `Synchronization.Mutex`, for two reasons. `Mutex` asks every value moved
/// in or out to be `sending`, and registry objects (registrations, slot entries) are shared
/// between threads by design, so that check cannot pass. And on Linux `Mutex` locks with futex
/// system calls that ThreadSanitizer does not see, so every access it protects is reported as a
/// race; `NSLock` is a pthread mutex, which ThreadSanitizer understands. This wrapper is the one
/// place that vouches for the state: it is only touched with the lock held, and what the
/// registry objects let other threads do is atomic or locked in turn.
@usableFromInline
final class _Locked<State>: @unchecked Sendable {
  @usableFromInline
  let lock = NSLock()
  @usableFromInline
  var state: State

  @usableFromInline
  init(_ state: State) { self.state = state }

  /// Runs `body` with exclusive access to the state. `body` must not call out to user code.
  @inlinable
  func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}

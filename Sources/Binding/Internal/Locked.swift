import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// State behind a small lock, for registry state that holds registry objects.
///
/// NOTE: This is not `Synchronization.Mutex`, for two reasons. `Mutex` asks every value moved
/// in or out to be `sending`, and registry objects (registrations, slot entries) are shared
/// between threads by design, so that check cannot pass. And on Linux `Mutex` locks with futex
/// system calls that ThreadSanitizer does not see, so it reports every access it protects as a
/// race. The lock here is a word-sized atomic flag (acquire on lock, release on unlock, which
/// ThreadSanitizer models), held only for a few instructions and never around user code; a
/// contended locker yields its thread. It takes no allocation, which matters because every
/// registration has such state. This wrapper is the one place that vouches for the state: it
/// is only touched with the lock held, and what the registry objects let other threads do is
/// atomic or locked in turn.
///
/// Not `final`: `_ModelState` inherits it, so that an observed object's state is one
/// allocation with its lock inline.
@usableFromInline
class _Locked<State>: @unchecked Sendable {
  @usableFromInline
  let _flag = Atomic<Bool>(false)
  @usableFromInline
  var state: State

  @usableFromInline
  init(_ state: State) { self.state = state }

  /// Runs `body` with exclusive access to the state. `body` must not call out to user code.
  @inlinable
  func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    while !_flag.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
      _yieldThread()
    }
    defer { _flag.store(false, ordering: .releasing) }
    return try body(&state)
  }
}

/// Lets another thread run while a lock is contended.
@usableFromInline
func _yieldThread() {
  sched_yield()
}

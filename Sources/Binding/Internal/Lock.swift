import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// State behind a lock: the one lock type of the package (registrations, model states, relation
/// controllers and dependency trackers all use it).
///
/// Built on `Synchronization.Mutex` (a futex on Linux, `os_unfair_lock` on Apple platforms): a
/// blocking lock with priority donation, no spinning, no allocation of its own, which matters
/// because every registration and every observed object has one. It is held only for a few
/// instructions, never while user code runs (no closure given to `withLock` calls out).
///
/// Two things `Mutex` alone does not give:
/// - **Values in and out**: `Mutex.withLock` asks for `sending` values, and the state here holds
///   registry objects and models that are shared between threads by design. This wrapper is the
///   one place that vouches for the state: it is only touched with the lock held, and what the
///   objects in it let other threads do is atomic or locked in turn.
/// - **ThreadSanitizer**: it does not see futexes, so it would report every access the lock
///   protects as a race. When the process runs under ThreadSanitizer, the lock tells it about
///   each acquisition and release (`__tsan_acquire`, `__tsan_release`, looked up once when the
///   library loads, by `_BindingThreadLocal`); in any other process that is one load of a null
///   function pointer.
///
/// Not `final`: `_ModelState` inherits it, so that an observed object's state is one allocation
/// with its lock inline.
// `@unchecked Sendable`: the state is only touched with the lock held (see above).
@usableFromInline
package class _Lock<State>: @unchecked Sendable {
  @usableFromInline
  let _mutex = Mutex(())
  /// Touched only inside `withLock`, which the mutex serialises (no run-time exclusivity
  /// check needed). `final`, so that `withLock` reaches it directly: in a class that can be
  /// inherited, an access goes through the property's `modify` coroutine, a call of its own.
  @usableFromInline
  @exclusivity(unchecked)
  final var state: State

  @usableFromInline
  package init(_ state: State) { self.state = state }

  /// Runs `body` with exclusive access to the state. `body` must not call user code.
  @inlinable
  final package func withLock<Result>(
    _ body: (inout State) throws -> Result
  ) rethrows -> Result {
    // The result goes through a slot on the stack rather than an `Optional<Result>` local: in
    // unspecialised generic code (a relation controller's), an optional of a generic result
    // makes the runtime look up `Optional<Result>`'s metadata on every call.
    try withUnsafeTemporaryAllocation(of: Result.self, capacity: 1) { buffer in
      // A buffer of capacity 1 has a base address.
      let slot = buffer.baseAddress.unsafelyUnwrapped
      try _mutex.withLock { _ in
        let address = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        _tsanAcquire(address)
        defer { _tsanRelease(address) }
        #if DEBUG
          _addLocksHeld(1)
          defer { _addLocksHeld(-1) }
        #endif
        slot.initialize(to: try body(&state))
      }
      // Initialised just above: `body` returned (had it thrown, the error would have been
      // rethrown before this line).
      return slot.move()
    }
  }
}

/// How many of the package's locks the calling thread holds, in debug builds; `nil` in release
/// builds, which do not count them. Tests ask it from code that must never run under a lock
/// (a model's `deinit`, a callback).
package func _locksHeldOnThisThread() -> Int? {
  #if DEBUG
    return _locksHeld()
  #else
    return nil
  #endif
}

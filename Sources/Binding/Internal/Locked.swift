import Synchronization

/// State behind a `Synchronization.Mutex`, for registry state that holds registry objects.
///
/// `Mutex` alone asks every value moved in or out to be `sending`; registry objects
/// (registrations, slot entries) are shared between threads by design, so that check cannot
/// pass. This wrapper is the one place that vouches for them: `state` is only touched inside
/// `mutex`, and what the registry objects let other threads do is atomic or locked in turn.
@usableFromInline
final class _Locked<State>: @unchecked Sendable {
  @usableFromInline
  let mutex = Mutex<Void>(())
  @usableFromInline
  var state: State

  @usableFromInline
  init(_ state: State) { self.state = state }

  /// Runs `body` with exclusive access to the state. `body` must not call out to user code.
  @inlinable
  func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try mutex.withLock { _ in try body(&state) }
  }
}

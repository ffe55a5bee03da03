import Foundation

/// State behind a lock, for the controllers' and the tracker's state that holds model objects.
///
/// It is a blocking lock (a controller may hold it while it updates its index), unlike Binding's
/// registry lock, which is only held for a few instructions.
///
/// NOTE: not `Synchronization.Mutex`, for two reasons. `Mutex` asks every value moved in or out
/// to be `sending`, and the controller's state holds model objects that are shared with the
/// model graph by design, so that check cannot pass; and on Linux `Mutex` is built on raw
/// futexes, which ThreadSanitizer does not model (it reports every access under it as a race),
/// while `NSLock` is a pthread mutex, which it does. This wrapper is the one place that vouches
/// for the state: it is only touched while `lock` is held, and the models themselves follow
/// their documented threading contract.
final class _Lock<State>: @unchecked Sendable {
  private let lock = NSLock()
  private var state: State

  init(_ state: State) { self.state = state }

  /// Runs `body` with exclusive access to the state. `body` must not change models.
  func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}

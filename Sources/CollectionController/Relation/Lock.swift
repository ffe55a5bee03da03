import Synchronization

/// State behind a `Synchronization.Mutex`, for controller state that holds model objects.
///
/// `Mutex` asks every value moved in or out to be `sending`; the controller's state holds
/// model objects that are shared with the model graph by design, so that check cannot pass.
/// This wrapper is the one place that vouches for them: `state` is only touched inside `mutex`,
/// and the models themselves follow their documented threading contract.
final class _Lock<State>: @unchecked Sendable {
  private let mutex = Mutex<Void>(())
  private var state: State

  init(_ state: State) { self.state = state }

  /// Runs `body` with exclusive access to the state. `body` must not change models.
  func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try mutex.withLock { _ in try body(&state) }
  }
}

/// A value handed from the thread that changed a model to the controller's delivery context.
///
/// `@unchecked Sendable` because what crosses is the controller itself (whose state is behind
/// `_Lock`) or a change set of models that the receiver observes through the controller:
/// sharing those models between contexts is the models' documented threading contract.
struct _Transfer<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}

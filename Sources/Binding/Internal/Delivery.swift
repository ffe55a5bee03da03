import Dispatch
import Foundation
import Synchronization

/// Where callbacks run, resolved from ``ObservationDelivery`` and the caller's isolation at
/// registration: the one scheduler of the package (registrations, relation controllers and
/// dependency trackers all deliver through it).
@usableFromInline
package enum _Route: Sendable {
  case synchronous
  case mainActor(_Mailbox)
  case queue(DispatchQueue)
  case actor(any Actor, _Mailbox)

  @usableFromInline
  package init(_ delivery: ObservationDelivery, isolation: (any Actor)?) {
    switch delivery.kind {
    case .synchronous: self = .synchronous
    case .mainActor: self = .mainActor(_Mailbox())
    case .queue(let queue): self = .queue(queue)
    case .automatic:
      guard let isolation else {
        self = .synchronous
        return
      }
      if isolation === MainActor.shared {
        self = .mainActor(_Mailbox())
      } else {
        self = .actor(isolation, _Mailbox())
      }
    }
  }

  /// Whether a job may run right here and now, in order with the route's earlier jobs:
  /// synchronous delivery, or main-actor delivery on the main actor with nothing queued. Costs
  /// no lock and no allocation, so that a change made on the main thread reaches a main-actor
  /// registration straight through.
  @inlinable
  package var runsHere: Bool {
    switch self {
    case .synchronous: true
    case .mainActor(let mailbox): mailbox.mayRunOnMainNow
    case .queue, .actor: false
    }
  }

  /// Runs `job` in this route's context, in order with the route's earlier jobs: at once for
  /// synchronous delivery, and on the main actor when the caller is on it with nothing queued.
  @usableFromInline
  package func run(_ job: @escaping () -> Void) {
    switch self {
    case .synchronous: job()
    case .mainActor(let mailbox): mailbox.runOnMain(_Job(job))
    case .queue(let queue):
      let job = _Job(job)
      queue.async { job.run() }
    case .actor(let actor, let mailbox): mailbox.run(_Job(job), on: actor)
    }
  }
}

/// A value handed from the thread that changed a model to the context that observes it.
///
/// `@unchecked Sendable` because what crosses is a callback formed in the receiving context
/// (the caller's actor at registration, or a context the caller named) that runs only there,
/// or a change of a model that this context observes: sharing the model between the two is the
/// model's documented threading contract, which the observer opted into. `CollectionController`
/// hands its change sets and models across the same way.
@usableFromInline
package struct _Transfer<Value>: @unchecked Sendable {
  @usableFromInline
  package var value: Value
  @usableFromInline
  package init(_ value: Value) { self.value = value }
}

/// A callback handed to the context it was registered for.
typealias _Job = _Transfer<() -> Void>

extension _Transfer where Value == () -> Void {
  func run() { value() }
}

/// The ordered queue of one registration's hops to an actor.
///
/// Main-actor delivery is synchronous when the change happens on the main thread and nothing
/// is queued; otherwise the job is queued behind the earlier ones, so deliveries keep their
/// order.
@usableFromInline
package final class _Mailbox: Sendable {
  private let state = _Lock<(jobs: [_Job], scheduled: Bool)>(([], false))
  /// Whether jobs are queued or a drain is scheduled (`state.scheduled`, readable without the
  /// lock): while it is set, a new job queues behind the others.
  private let busy = Atomic<Bool>(false)

  @usableFromInline
  init() {}

  /// Whether a job may run right now, here: the caller is on the main actor and nothing is
  /// queued. A job queued by another thread at the same moment may run after this one: the
  /// two changes raced, and either order is theirs.
  @usableFromInline
  var mayRunOnMainNow: Bool {
    !busy.load(ordering: .acquiring) && _isOnMainActor()
  }

  func runOnMain(_ job: _Job) {
    let onMain = _isOnMainActor()
    let runNow = state.withLock { state -> Bool in
      if onMain && state.jobs.isEmpty && !state.scheduled { return true }
      state.jobs.append(job)
      if state.scheduled { return false }
      state.scheduled = true
      busy.store(true, ordering: .releasing)
      DispatchQueue.main.async { self.drain() }
      return false
    }
    if runNow { job.run() }
  }

  func run(_ job: _Job, on actor: any Actor) {
    let schedule = state.withLock { state -> Bool in
      state.jobs.append(job)
      if state.scheduled { return false }
      state.scheduled = true
      busy.store(true, ordering: .releasing)
      return true
    }
    if schedule { Task { await self.drain(on: actor) } }
  }

  private func next() -> _Job? {
    state.withLock { state in
      if state.jobs.isEmpty {
        state.scheduled = false
        busy.store(false, ordering: .releasing)
        return nil
      }
      return state.jobs.removeFirst()
    }
  }

  private func drain() {
    while let job = next() { job.run() }
  }

  private func drain(on actor: isolated any Actor) {
    while let job = next() { job.run() }
  }
}

/// A marker set on the main dispatch queue, to recognise code running on it.
private let _mainQueueKey: DispatchSpecificKey<UInt8> = {
  let key = DispatchSpecificKey<UInt8>()
  DispatchQueue.main.setSpecific(key: key, value: 1)
  return key
}()

/// Whether the caller runs on the main queue, which is the main actor's executor.
///
/// Not `Thread.isMainThread` alone: under `dispatchMain()` (as in `swift test` on Linux) the
/// main queue, and so the main actor, is served by another thread.
func _isOnMainQueue() -> Bool {
  DispatchQueue.getSpecific(key: _mainQueueKey) == 1
}

/// Whether the caller runs on the main actor: on the main thread (cheap to check: an app's
/// main thread serves the main queue; under `dispatchMain()` the main thread has exited), or
/// on the main queue served by another thread.
@usableFromInline
func _isOnMainActor() -> Bool {
  _ThreadState.currentIsMain || _isOnMainQueue()
}

/// Whether the calling thread is the process's main thread (asked once per thread).
func _currentThreadIsMain() -> Bool { Thread.isMainThread }

/// Where an observation's callbacks run.
///
/// The default, ``automatic``, follows the isolation of the code that registers: registered
/// from the main actor (a view controller, a SwiftUI model), callbacks run on the main actor,
/// synchronously when the change happens on the main thread and in order otherwise;
/// registered from another actor, they hop to that actor, in order; registered from
/// nonisolated code, they run synchronously on the thread that made the change.
public struct ObservationDelivery: Sendable {
  enum Kind: Sendable {
    case automatic, synchronous, mainActor
    case queue(DispatchQueue)
  }

  let kind: Kind

  /// Follows the isolation of the registering code (see the type's discussion).
  public static let automatic = ObservationDelivery(kind: .automatic)
  /// Synchronously, on the thread that made the change, right after the value is stored.
  public static let synchronous = ObservationDelivery(kind: .synchronous)
  /// On the main actor: synchronously when the change happens on the main thread and nothing
  /// is queued, otherwise queued in order.
  public static let mainActor = ObservationDelivery(kind: .mainActor)

  /// Asynchronously on `queue`, in order if the queue is serial.
  ///
  /// - Parameter queue: The queue that runs the callbacks.
  /// - Returns: The delivery.
  public static func queue(_ queue: DispatchQueue) -> ObservationDelivery {
    ObservationDelivery(kind: .queue(queue))
  }
}

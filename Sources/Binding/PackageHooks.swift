import Foundation
import Synchronization

// The contract between Binding and the package's other modules (CollectionController's relation
// controllers, Binding's own dependency tracker): every `package` entry point by which they learn
// what Binding knows, in one place. The shared tools they also use live with their mechanism
// (the lock `_Lock`, the scheduler `_Route`, `_cachePrefetch`, the debug counters tests read).
// Nothing here hands out a pointer or a tag bit: the observation word's tags (a lone watch) stay
// inside Binding (StateWord.swift).
//
// - Transactions: `_afterCurrentTransaction` tells a `_TransactionObserver` when the
//   transaction open on the calling thread ends (the outermost `coalesce` block, or the write
//   or announced deletion being notified); `_TransactionRelay` waits for it without keeping
//   the observer alive.
// - Watches: `_watch` makes one small watch per element (Watch.swift holds the sink, the watch
//   and the handle), reporting to a `_WatchReceiver` on the writing thread with no lock held;
//   `_readsObservedProperty` says whether a function reads anything observable.
// - Edits: `_withEditHint`/`_currentEditHint` let a fine-grained edit tell the observers of its
//   one write what it did; `_withoutNotifications` makes the write that takes a value out of its
//   property (to edit it in place) unheard.
// - Threads and buffers: `_currentThreadKey` names the calling thread; `_recycle` keeps small
//   buffers from one transaction to the next.
//
// The rules every client keeps: callbacks (`_transactionEnded`, `_watchFired`) run on the
// writing thread with no lock of Binding's held, so a client may take its own locks there but
// must release them before calling user code or Binding again.

// MARK: - Transactions

/// Hears the end of a transaction (see `_afterCurrentTransaction(_:)`).
@usableFromInline
package protocol _TransactionObserver: AnyObject, Sendable {
  /// The transaction ended; runs on the thread that made it, with no lock of Binding's held.
  func _transactionEnded()
  /// The observer's name, for messages.
  var _observerName: String { get }
}

extension _TransactionObserver {
  /// The observer's type, for messages.
  @usableFromInline
  package var _observerName: String { "\(type(of: self))" }
}

/// Passes the end of a transaction on to an observer held weakly, so that waiting for the end
/// does not keep the observer alive (an observer released meanwhile hears nothing). Made once
/// per observer, not per transaction.
@usableFromInline
package final class _TransactionRelay: _TransactionObserver {
  /// Calls the observer's `_transactionEnded` if it is still alive, and names its type.
  @usableFromInline
  struct _Target: Sendable {
    @usableFromInline let ended: @Sendable () -> Void
    @usableFromInline let name: @Sendable () -> String?

    @inlinable
    init(ended: @escaping @Sendable () -> Void, name: @escaping @Sendable () -> String?) {
      self.ended = ended
      self.name = name
    }
  }

  /// Guards the target, set once by its owner's initialiser.
  private let _target = _Lock<_Target?>(nil)

  @usableFromInline
  package init() {}

  /// Sets the observer (once, when it is initialised).
  ///
  /// Generic and inlinable for the reason `_WatchSink.attach(_:)` gives: the end of a
  /// transaction then enters the observer's code specialised for its types.
  @inlinable
  package func attach<Target: _TransactionObserver>(_ target: Target) {
    _setTarget(
      _Target(
        ended: { [weak target] in target?._transactionEnded() },
        name: { [weak target] in target.map { "\(type(of: $0))" } }))
  }

  @usableFromInline
  func _setTarget(_ target: _Target) {
    _target.withLock { $0 = target }
  }

  @usableFromInline
  package func _transactionEnded() { _target.withLock { $0 }?.ended() }

  /// The type of the observer it relays to, for messages.
  @usableFromInline
  package var _observerName: String {
    _target.withLock { $0 }?.name() ?? "a released observer"
  }
}

/// Tells `observer` when the transaction open on this thread ends: at the end of the outermost
/// `coalesce` block, or, outside one, once the write or the announced deletion being notified
/// (and what its observers wrote) has been heard by all of its observers; at once when no
/// transaction is open.
///
/// This is how the package's own clients (relation controllers, dependency trackers) learn
/// where a transaction ends: the observer is called after the transaction's coalesced
/// registrations of that round, on the same thread, with no lock held. Changes it makes are
/// delivered in further rounds, like those of a coalesced callback. Nothing is allocated per
/// call beyond the transaction's own scope (the observer is retained until then).
@usableFromInline
package func _afterCurrentTransaction(_ observer: any _TransactionObserver) {
  if let scope = _openCoalescingScope() {
    scope.onEnd(observer)
  } else {
    observer._transactionEnded()
  }
}

/// An identity of the calling thread, stable while it runs (its per-thread state's address).
@usableFromInline
package func _currentThreadKey() -> UInt {
  _ThreadState.currentKey
}

// MARK: - Watches

/// Hears the watches of one sink.
@usableFromInline
package protocol _WatchReceiver: AnyObject, Sendable {
  /// An object that the evaluation of the element `id` read changed, or, when
  /// `elementDeleted`, the element announced its deletion. Runs on the writing thread, after
  /// the write, with no lock of Binding's held (the receiver may take its own and evaluate the
  /// element there).
  func _watchFired(_ id: ObjectIdentifier, elementDeleted: Bool)
}

/// Evaluates `evaluate` with tracking and watches `element` and every object it read.
///
/// When the evaluation read only the element: keeps `previous` if it is still live, or else
/// makes a lone watch when nothing else observes the element. Otherwise makes a new watch, listed
/// by every object read. With `endingPrevious` (the default), ends `previous` afterwards (after,
/// so that a write on another thread in between reaches one of them: at worst both, one more
/// re-evaluation); without it, the caller ends `previous` itself once it knows the new watch is
/// kept (with `end(of:sink:except:)`, sparing the new watch).
///
/// - Returns: The watch, or `nil` when `element` announced its deletion: it is not watched
///   (and `previous` is ended, with `endingPrevious`).
@usableFromInline
package func _watch<Root: ObservableModel>(
  _ element: Root, sink: _WatchSink, replacing previous: _WatchHandle?,
  endingPrevious: Bool = true, _ evaluate: () -> Void
) -> _WatchHandle? {
  let id = ObjectIdentifier(element)
  let others = _AccessRecorder.trackObjects(excluding: id, evaluate)
  if others.isEmpty {
    switch previous {
    case .full(let watch)?:
      if watch.isLive, watch.readsOnlyElement, !element.isDeleted { return previous }
    case .lone?:
      if element.observation.hasLoneWatch(sink, element: id) { return previous }
    case nil:
      break
    }
    if element.observation.beginLoneWatch(sink) {
      // A previous lone watch is over (checked above): only a listed one needs ending.
      if endingPrevious, case .full(let watch)? = previous { watch.deactivate() }
      return .lone
    }
  }
  let state = element.observation.state(of: element)
  let watch = _Watch(sink: sink, element: id, readsOnlyElement: others.isEmpty)
  guard state.add(watch) else {
    watch.deactivate()
    if endingPrevious { previous?.end(of: element, sink: sink) }
    return nil
  }
  for other in others {
    // An object that announced its deletion has nothing more to tell.
    _ = other.add(watch)
  }
  if endingPrevious { previous?.end(of: element, sink: sink, except: watch) }
  return .full(watch)
}

/// Whether evaluating `body` for `element` reads any `@Observed` property (of the element, or
/// of an object it reaches): a function that reads none can never change its result as far as
/// observation can tell.
@usableFromInline
package func _readsObservedProperty<Root: ObservableModel>(
  of element: Root, _ body: () -> Void
) -> Bool {
  _AccessRecorder.readsAnything(of: ObjectIdentifier(element), body)
}

// MARK: - Runtime issues

/// Reports a mistake that the package can tell only at run time and that does not trap (a
/// function that will go stale): one line on standard error, starting `warning: `, and an entry
/// in `_runtimeIssueLog` for tests. The caller reports each mistake once.
@usableFromInline
package func _reportRuntimeIssue(_ message: String) {
  _runtimeIssueLog.withLock { $0.append(message) }
  FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
}

/// Every runtime issue reported in this process, in order (read by tests).
package let _runtimeIssueLog = Mutex<[String]>([])

// MARK: - Edits

/// Runs `body`, one synchronous write, with `hint` (what the write does, in the client's terms)
/// readable by the write's observers through `_currentEditHint`, on this thread only.
///
/// The hint is a side note on one write, not a channel: observers run synchronously inside the
/// write on the writing thread, so they read it while it is set; a write their callbacks make
/// sees it too, so a reader checks that the hint describes the change it hears (the relation
/// controller compares the owner, the key path, the counts and the array buffers' identities)
/// and otherwise ignores it. The one per-thread mechanism of the package (the thread state),
/// not a task local: everything here is synchronous.
@usableFromInline
package func _withEditHint<R>(_ hint: AnyObject, _ body: () throws -> R) rethrows -> R {
  let thread = _ThreadState.current
  let outer = thread.clientValue
  thread.clientValue = hint
  defer { thread.clientValue = outer }
  return try body()
}

/// The hint set by the innermost `_withEditHint` running on this thread, if any.
@usableFromInline
package var _currentEditHint: AnyObject? { _ThreadState.existing?.clientValue }

/// Runs `body` so that the writes of `@Observed` properties it makes on this thread notify no
/// observer (Binding's observers; a model bridged to Swift Observation still tells it).
///
/// For edits that take a value out of its property to change it in place and write it back:
/// the write that takes it out is not a change anyone should hear, the write back is.
@usableFromInline
package func _withoutNotifications<R>(_ body: () throws -> R) rethrows -> R {
  _ThreadState.withCurrent { $0.silentWrites += 1 }
  defer { _ThreadState.withCurrent { $0.silentWrites -= 1 } }
  return try body()
}

// MARK: - Buffers

/// Up to this capacity, a buffer emptied at the end of a transaction is kept for the next one
/// (a larger one is released: one large transaction must not make every later one clear a
/// large buffer). Shared by Binding's scopes and the relation controller's transactions.
@inlinable
package var _keptBufferCapacity: Int { 64 }

/// Empties `buffer` and makes it `array`'s, if `array` is empty and `buffer` is small (at most
/// `_keptBufferCapacity`): the next transaction then fills it without allocating. Releasing
/// the elements may run their `deinit`s, so callers hold no lock; and it happens inside the
/// access to `array`, so a caller whose `array` such a `deinit` may reach empties `buffer`
/// first (see `_CoalescingScope.flush`).
@inlinable
package func _recycle<T>(_ buffer: inout [T], into array: inout [T]) {
  guard array.isEmpty && buffer.capacity <= _keptBufferCapacity else { return }
  buffer.removeAll(keepingCapacity: true)
  swap(&buffer, &array)
}

/// Runs `body` as one coalesced transaction on the current thread and returns its result.
///
/// Registrations made with ``ObservationOptions/coalesced`` that hear changes inside the block
/// are not called until the outermost `coalesce` ends; then each is called once, with the first
/// old value and the last new value, in the order of their first change (deletion events
/// first). Everything else (registrations without the option, and bindings) is delivered at
/// once, as usual.
///
/// ```swift
/// coalesce {
///   user.name = "Ada"
///   user.name = "Ada Lovelace"
/// }
/// // A coalesced target of \.name hears once: "" → "Ada Lovelace".
/// ```
///
/// Outside any block, one write and what its observers' callbacks write form a transaction of
/// their own, delivered to coalesced registrations once that write's other observers have run.
///
/// Blocks nest: only the outermost one delivers. If `body` throws, the block still ends, what
/// changed before the throw is delivered, and the error is rethrown. Changes that callbacks
/// make while the block's changes are delivered are delivered in further rounds, never lost;
/// if changes still arrive after ``maximumCoalescingRounds`` rounds, the callbacks form a cycle
/// that never settles and the process traps with a message naming the key paths.
///
/// - Parameter body: The edits to coalesce.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, once the changes it made before throwing are delivered.
/// - Complexity: O(1) to open and close the block, plus one delivery per coalesced
///   registration that heard a change (and what those callbacks do).
/// - Important: Coalescing is per thread: it covers changes made on the calling thread inside
///   `body` only, and does not span `await` (an async function may resume on another thread).
public func coalesce<Result, Failure: Error>(
  _ body: () throws(Failure) -> Result
) throws(Failure) -> Result {
  let thread = _ThreadState.current
  let scope: _CoalescingScope
  if let open = thread.coalescing {
    scope = open
  } else {
    scope = _CoalescingScope()
    thread.coalescing = scope
  }
  scope.depth += 1
  defer {
    scope.depth -= 1
    if scope.depth == 0 {
      scope.flush()
      thread.coalescing = nil
    }
  }
  return try body()
}

/// The number of delivery rounds after which a coalesced transaction that keeps producing
/// changes is a programmer error (a cycle of callbacks that never settles).
public let maximumCoalescingRounds = 100

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
/// `coalesce` block, or, outside one, once the write being notified (and what its observers
/// wrote) has been heard by all of its observers; at once when no transaction is open.
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

/// A delivery deferred to the end of a coalesced transaction.
class _Pending {
  let record: _Record
  var isDeletion = false

  init(record: _Record) { self.record = record }

  var description: String { "\(record.keyPaths)" }

  /// Names a registration by its root's type and the properties it reads.
  func _describe(_ record: _Record, _ root: AnyObject) -> String {
    let names = record.readSlots.map { $0.isOwned(by: root) ? $0.name(in: root) : "…" }
    return "\(type(of: root)).(\(names.joined(separator: ", ")))"
  }
  func deliver() {}
}

/// A key-path registration to evaluate (and deliver) at the end of the transaction.
final class _PendingEvaluation: _Pending {
  let root: AnyObject
  let evaluate: () -> Void

  init(record: _Record, root: AnyObject, evaluate: @escaping () -> Void) {
    self.root = root
    self.evaluate = evaluate
    super.init(record: record)
  }

  override var description: String { _describe(record, root) }

  override func deliver() {
    guard record.isActive else { return }
    evaluate()
  }
}

final class _PendingEvents: _Pending {
  let object: AnyObject
  var slots: [_AnySlot]

  init(record: _AnyRecord, object: AnyObject, slot: _AnySlot?) {
    self.object = object
    self.slots = slot.map { [$0] } ?? []
    super.init(record: record)
  }

  override var description: String {
    "\(type(of: object)).(\(slots.map { $0.name(in: object) }.joined(separator: ", ")))"
  }

  override func deliver() {
    guard let record = record as? _AnyRecord, record.isActive else { return }
    if isDeletion {
      record.deleted(object, record.lifetime)
      record.lifetime.endAfterDeletion()
    } else if !record.changed(object, slots, record.lifetime) {
      record.cancel()
    }
  }
}

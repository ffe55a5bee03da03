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
/// their own, delivered to coalesced registrations once that write's other observers have run;
/// so does one ``ObservableModel/announceDeletion()``.
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

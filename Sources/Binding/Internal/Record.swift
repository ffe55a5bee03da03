import Synchronization

/// One registration: an observation, a target, or a binding.
@usableFromInline
class _Record {
  @usableFromInline
  final let lifetime = _Lifetime()
  /// The target, for `removeTarget`; `nil` for target-less observations and bindings.
  final let targetID: ObjectIdentifier?
  /// The key paths as registered, for `removeTarget(_:for:)`.
  final let keyPaths: [AnyKeyPath]
  /// The object the registration lives for, weakly (a target, a binding's receiver), so that a
  /// registration whose object died is swept by the next registration on the same object.
  final let target: _WeakBox<AnyObject>?

  /// - Parameters:
  ///   - target: What the registration lives for, if anything: its target, or a binding's
  ///     receiver.
  ///   - keyPaths: The key paths as registered.
  ///   - removableByTarget: Whether `removeTarget` ends it (`false` for a binding, which only
  ///     `unbind` ends).
  @usableFromInline
  init(target: AnyObject?, keyPaths: [AnyKeyPath], removableByTarget: Bool = true) {
    self.targetID = removableByTarget ? target.map(ObjectIdentifier.init) : nil
    self.target = target.map(_WeakBox.init)
    self.keyPaths = keyPaths
    _liveRecords.add(1, ordering: .relaxed)
  }

  deinit { _liveRecords.subtract(1, ordering: .relaxed) }

  // MARK: Calls of the handler, and its release when the registration ends

  /// The calls of the registration's handler under way (times two), plus 1 once the
  /// registration ended: the handler is released when both hold, by whoever sees that last
  /// (the ending thread, or the call that returns last), so `cancel()` lets go of it at once
  /// unless a call is running, and then right after that call returns.
  @usableFromInline
  final let _calls = Atomic<Int>(0)
  private let _released = Atomic<Bool>(false)

  /// Starts a call of the handler; `false` (and nothing to call) once the registration ended.
  /// Each `true` is paired with `_exitCall()`.
  @inlinable
  final func _enterCall() -> Bool {
    if _calls.wrappingAdd(2, ordering: .acquiring).oldValue & 1 == 0 { return true }
    _exitCall()
    return false
  }

  /// Ends a call of the handler.
  @inlinable
  final func _exitCall() {
    if _calls.wrappingSubtract(2, ordering: .acquiringAndReleasing).newValue == 1 {
      _releaseHandlerOnce()
    }
  }

  /// Marks the registration ended for its handler's calls: releases the handler now if no call
  /// is under way.
  @usableFromInline
  final func _endCalls() {
    if _calls.bitwiseOr(1, ordering: .acquiringAndReleasing).oldValue == 0 {
      _releaseHandlerOnce()
    }
  }

  @usableFromInline
  final func _releaseHandlerOnce() {
    if !_released.exchange(true, ordering: .acquiringAndReleasing) { releaseHandler() }
  }

  /// Drops the registration's handler (and what it captured). Called once, with no call of it
  /// under way and none to come.
  func releaseHandler() {}

  /// Whether the registration is over: cancelled, or its target (or receiver) was deallocated.
  final var isObsolete: Bool { !isActive || (target != nil && target?.value == nil) }

  @inlinable
  final var isActive: Bool { lifetime.isActive }

  /// Ends the registration. Idempotent.
  @inlinable
  final func cancel() { lifetime.cancel() }

  /// Delivers the deletion of the observed object (the registration is cancelled right after).
  func deliverDeletion(of object: AnyObject) {}

  /// The slots the registration read last (for messages).
  var readSlots: [_AnySlot] { [] }
}

/// The number of registrations alive in the process (for lifetime tests).
let _liveRecords = Atomic<Int>(0)

/// The number of registrations (observations, targets, bindings) alive in the process: a test
/// hook for leak checks, not API.
@usableFromInline
package var _liveRegistrationCount: Int { _liveRecords.load(ordering: .relaxed) }

/// One property a key path read, and the entry the registration put in its slot.
@usableFromInline
struct _Read {
  @usableFromInline let slot: _AnySlot
  @usableFromInline let entry: _SlotEntry

  @inlinable
  init(slot: _AnySlot, entry: _SlotEntry) {
    self.slot = slot
    self.entry = entry
  }

  /// Whether two lists hold the same entries, in order.
  @inlinable
  static func sameEntries(_ lhs: [_Read], _ rhs: [_Read]) -> Bool {
    lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.entry === $1.entry }
  }

  /// Whether `reads` are exactly `slots` (compared by address only), in order, with live
  /// entries.
  @inlinable
  static func same(_ reads: [_Read], _ slots: _RecordedSlots) -> Bool {
    guard reads.count == slots.count else { return false }
    for index in reads.indices
    where !slots.isSlot(at: index, reads[index].slot) || !reads[index].entry.isLive {
      return false
    }
    return true
  }
}

/// A weak reference in a box.
///
/// Closures capture a box rather than `[weak object]`: a weak capture is a mutable variable, and
/// every load of it pays a dynamic exclusivity check. The box's reference is a constant.
@usableFromInline
final class _WeakBox<Object: AnyObject> {
  @usableFromInline weak let value: Object?
  @usableFromInline init(_ value: Object) { self.value = value }
}

/// Traps for a key path that reads no `@Observed` property.
@usableFromInline
func _readsNothing(_ path: AnyKeyPath, _ root: Any.Type) -> Never {
  fatalError(
    """
    Binding: the key path \(path) of \(root) reads no @Observed property, so no change of it \
    can ever be observed. Mark the stored properties it reads @Observed (in a class adopting \
    ObservableModel).
    """)
}

/// The transaction that coalesced registrations join on this thread: the open `coalesce`
/// block, or else the write or deletion being notified (one write is one transaction, and so
/// is one deletion); `nil` otherwise.
@usableFromInline
func _openCoalescingScope() -> _CoalescingScope? {
  guard let thread = _ThreadState.existing else { return nil }
  if let scope = thread.coalescing { return scope }
  guard thread.writeDepth > 0 else { return nil }
  if let scope = thread.writeScope { return scope }
  let scope = _CoalescingScope()
  thread.writeScope = scope
  return scope
}

/// A value in a box, to hold it by a pointer retained by hand.
@usableFromInline
final class _Box<Value> {
  @usableFromInline
  let value: Value

  @usableFromInline
  init(_ value: Value) { self.value = value }
}

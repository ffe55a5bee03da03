import Synchronization

/// The part of a registration that any thread may touch: whether it is active, the entries
/// it put in property slots, and what to run when it ends. Tokens hold this.
@usableFromInline
final class _Lifetime: Sendable {
  @usableFromInline
  let _active = Atomic<Bool>(true)
  private let _state = _Lock(_State())

  private struct _State {
    /// The entries the registration put in property slots.
    var attachments: [_SlotEntry] = []
    /// What to run when the registration ends (finishes a stream).
    var onEnd: (@Sendable () -> Void)?
    /// Drops the registration's references to the slots it read (which point back to it).
    var cleanup: (() -> Void)?
  }

  @inlinable
  var isActive: Bool { _active.load(ordering: .acquiring) }

  /// Set when the registration ended because its object announced its deletion.
  @usableFromInline
  let _endedByDeletion = Atomic<Bool>(false)
  /// Set by every `cancel()`, also one that comes after the deletion ended the registration.
  @usableFromInline
  let _cancelled = Atomic<Bool>(false)

  /// Whether a delivery queued for another context (the main actor, a queue, an actor) may
  /// still run when its turn comes: the registration is active, or it ended because its object
  /// was deleted (what was queued before, and the deletion event itself, still arrive). After
  /// `cancel()` (a token, `removeTarget`, `unbind`) nothing queued runs, even after a deletion.
  @inlinable
  var mayDeliver: Bool {
    !_cancelled.load(ordering: .acquiring)
      && (isActive || _endedByDeletion.load(ordering: .acquiring))
  }

  /// Ends the registration because its object announced its deletion (see `mayDeliver`).
  func endAfterDeletion() {
    _endedByDeletion.store(true, ordering: .releasing)
    _end()
  }

  /// Ends the registration: nothing is delivered after this returns (on this thread; a delivery
  /// already running on another thread may finish). Idempotent.
  @usableFromInline
  func cancel() {
    _cancelled.store(true, ordering: .releasing)
    _end()
  }

  /// Ends the registration once, whoever ends it.
  private func _end() {
    guard _active.exchange(false, ordering: .acquiringAndReleasing) else { return }
    let taken = _state.withLock { state in
      let taken = state
      state = _State()
      return taken
    }
    for entry in taken.attachments { entry.deactivate() }
    taken.cleanup?()
    taken.onEnd?()
  }

  /// Sets what runs once when the registration ends (runs at once if it already ended).
  func onEnd(_ action: @escaping @Sendable () -> Void) {
    let runNow = _state.withLock { state -> Bool in
      guard isActive else { return true }
      precondition(state.onEnd == nil, "Binding: a registration has one end action")
      state.onEnd = action
      return false
    }
    if runNow { action() }
  }

  /// Sets what drops the registration's references to slots when it ends (runs at once if it
  /// already ended).
  @usableFromInline
  func setCleanup(_ cleanup: @escaping () -> Void) {
    let runNow = _state.withLock { state -> Bool in
      guard isActive else { return true }
      state.cleanup = cleanup
      return false
    }
    if runNow { cleanup() }
  }

  /// Records entries added to slots, or deactivates them at once if the registration ended.
  @usableFromInline
  func attach(_ entries: [_SlotEntry]) {
    let accepted = _state.withLock { state in
      guard isActive else { return false }
      state.attachments.append(contentsOf: entries)
      return true
    }
    if !accepted { for entry in entries { entry.deactivate() } }
  }

  /// Replaces the attachments (after re-tracking a derived key path).
  @usableFromInline
  func replaceAttachments(keeping kept: [_SlotEntry], adding added: [_SlotEntry]) {
    let dropped = _state.withLock { state -> [_SlotEntry]? in
      guard isActive else { return nil }
      let keptIDs = Set(kept.map(ObjectIdentifier.init))
      let dropped = state.attachments.filter { !keptIDs.contains(ObjectIdentifier($0)) }
      state.attachments = kept + added
      return dropped
    }
    for entry in dropped ?? added { entry.deactivate() }
  }
}

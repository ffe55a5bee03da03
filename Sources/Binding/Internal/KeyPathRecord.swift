import Synchronization

// A registration of one key path.
//
// One of Binding's few files with unsafe code (`UnretainedReferences.swift` lists them): a
// registration whose key path reads one property of its root keeps its last value outside its
// lock, with no run-time exclusivity check (`_single`, `_singleValue`, `_singleSlot`). The
// invariant: those fields are touched only by evaluations, which run on the thread writing the
// one property read (the model's threading contract serialises those writes), or under the
// lock once the registration leaves that mode for good. What it buys: the benchmark's row one
// target / floor line (the registration is specialised in the client's module, where the
// optimiser cannot prove the accesses exclusive). `NestedPathTests` and `StressTests` drive
// both modes, under ThreadSanitizer in CI.

/// A registration of one key path of one root object.
///
/// The key path is evaluated with access tracking at registration and after every change of
/// something it read; each evaluation re-attaches the registration to what it reads now
/// (`\.address?.city` follows a replaced `address` and leaves the old one), and delivers if the
/// value changed. `read` is a closure built where the key path is a literal, so the compiler
/// turns it into a direct getter call; the members on the notification path are inlinable so
/// that they are specialised for the model and value types where the registration is made.
@usableFromInline
final class _KeyPathRecord<Root: ObservableModel, Value>: _Record {
  @usableFromInline
  let rootID: ObjectIdentifier
  /// The root, held weakly only once the key path reads another object (a weak reference
  /// slows down every retain of its object, so root-only paths do without), released in
  /// `deinit`.
  @usableFromInline
  let _weakRoot = _OnceReference<_WeakBox<Root>>()
  @usableFromInline
  let path: KeyPath<Root, Value>
  @usableFromInline
  let read: (Root) -> Value
  @usableFromInline
  let options: ObservationOptions
  /// `==` for `Value`, if it has one and the registration keeps values to compare. Held in a box
  /// retained by hand (released in `deinit`), so that comparing retains nothing.
  @usableFromInline
  let _isEqual: _Retained<_Box<(Value, Value) -> Bool>>?
  /// Whether the last value is kept between changes (see `ObservationOptions._keepsNoValue`:
  /// without it, each change is delivered with the new value as its old value too).
  @usableFromInline
  let _keepsValue: Bool
  /// Delivers a change where the registration's delivery context says; returns `false` once
  /// the target is gone for good. Held in a box retained by hand, so that it is called without
  /// retaining it (between `_enterCall()` and `_exitCall()`) and released when the
  /// registration ends (`releaseHandler()`), with the deletion callback it holds too.
  @usableFromInline
  let _dispatch: _Retained<_Dispatch<Root, Value>>
  /// The last value and the slots it was read from (with this registration's entries).
  @usableFromInline
  let _state = _Lock<_Evaluation?>(nil)
  /// Single-property mode: the key path read one property of the root, so every evaluation
  /// runs on the thread writing that property (which the model's threading contract
  /// serialises) and this state needs no lock. Once the path reads anything else, the record
  /// moves to the locked `_state` for good.
  @usableFromInline
  @exclusivity(unchecked)
  var _single = false
  @usableFromInline
  @exclusivity(unchecked)
  var _singleValue: Value?
  /// The number of the slot of the one property read in single-property mode (0 outside it),
  /// so that the hot path retains nothing (`_state` owns the read).
  @usableFromInline
  @exclusivity(unchecked)
  var _singleSlot: _SlotNumber = 0

  @usableFromInline
  struct _Evaluation {
    /// `nil` in single-property mode, where `_singleValue` holds the value: a copy kept here
    /// would never be updated, and would keep the first value (and the objects in it) alive
    /// as long as the registration.
    @usableFromInline var value: Value?
    @usableFromInline var reads: [_Read]

    @inlinable
    init(value: Value?, reads: [_Read]) {
      self.value = value
      self.reads = reads
    }
  }

  @inlinable
  init(
    root: Root, path: KeyPath<Root, Value>, read: @escaping (Root) -> Value,
    options: ObservationOptions, target: AnyObject?, receiver: AnyObject? = nil,
    isEqual: ((Value, Value) -> Bool)?,
    dispatch: @escaping (KeyPathChange<Root, Value>, _Lifetime) -> Bool,
    deletion: ((Root, _Lifetime) -> Bool)? = nil
  ) {
    self.rootID = ObjectIdentifier(root)
    self.path = path
    self.read = read
    self.options = options
    self._keepsValue = options.rawValue & ObservationOptions._keepsNoValueBit == 0
    // Without a kept value there is nothing to compare with: every write is delivered.
    self._isEqual = _keepsValue ? isEqual.map { _Retained(_Box($0)) } : nil
    self._dispatch = _Retained(_Dispatch(dispatch, deletion: deletion))
    // A binding lives for its receiver (swept once it died) but is not a target.
    super.init(target: target ?? receiver, keyPaths: [path], removableByTarget: receiver == nil)
  }

  /// Resolves the key path, attaches to what it reads, and registers with the root.
  ///
  /// Returns the current value, or `nil` if the root announced its deletion.
  @inlinable
  func start(_ root: Root) -> Value? {
    guard _prepare(root) else {
      cancel()
      _endCalls()  // no clean-up is set yet to do it
      return nil
    }
    let (value, slots) = _AccessRecorder.track { read(root) }
    if slots.isEmpty { _readsNothing(path, Root.self) }
    let reads = slots.map { _Read(slot: $0, entry: attach(to: $0)) }
    if reads.count == 1 && reads[0].slot.isOwned(by: root) {
      _single = true
      _singleValue = _keepsValue ? value : nil
      _singleSlot = reads[0].slot.id
    } else if slots.contains(where: { !$0.isOwned(by: root) }) {
      _keepWeakRoot(root)
    }
    let kept = _single || !_keepsValue ? nil : value
    _state.withLock { $0 = _Evaluation(value: kept, reads: reads) }
    lifetime.attach(reads.map { $0.entry })
    guard let rootState = _finish(root) else {
      cancel()
      _endCalls()  // no clean-up is set yet to do it
      return nil
    }
    _cleanUpOnEnd(rootState)
    return value
  }

  @inlinable
  func attach(to slot: _AnySlot) -> _SlotEntry {
    // The entry keeps the registration alive while it sits in the slot; `cancel()` breaks
    // the cycle (it deactivates the entry, which the slot then unlinks).
    let entry = _SlotEntry { owner in
      self.propertyDidChange(owner)
    }
    slot.append(entry)
    return entry
  }

  /// Re-evaluates after a property the key path read changed (at once, or at the end of the
  /// coalesced transaction for coalesced registrations).
  @inlinable
  func propertyDidChange(_ owner: AnyObject) -> Bool {
    guard isActive else { return false }
    if _single || ObjectIdentifier(owner) == rootID {
      // `owner` is the root itself (in single-property mode only the root's slot holds this
      // registration's entry; otherwise the identities match): alive, in its own setter. Passed
      // on directly, so that it is not retained (a merged `let root` with the branch below
      // would be).
      return _rootDidChange(unsafeDowncast(owner, to: Root.self))
    }
    guard let root = _aliveRoot() else {
      cancel()
      return false
    }
    return _rootDidChange(root)
  }

  /// Re-evaluates for `root`, now or at the end of the open coalesced transaction.
  @inlinable
  func _rootDidChange(_ root: Root) -> Bool {
    if options.contains(.coalesced), let scope = _openCoalescingScope() {
      // Evaluated once at the end: the old value is the last one delivered, the new one is
      // read then, which is the first old value and the last new value.
      if !scope.isPending(self) {
        scope.enqueue(self, root: root) { [self] in _ = self.evaluateAndDeliver(root) }
      }
      return true
    }
    return evaluateAndDeliver(root)
  }

  /// Evaluates the key path and delivers the change if the value changed.
  @inlinable
  func evaluateAndDeliver(_ root: Root) -> Bool {
    guard isActive else { return false }
    guard let (oldValue, value) = evaluate(root) else { return isActive }
    if !options.contains(.everySet), _areEqual(oldValue, value) { return true }
    let delivered = _callBorrowing(root, oldValue, value)
    if !delivered { cancel() }
    return delivered
  }

  /// Whether `lhs == rhs`; `false` when the registration has no `==` to compare with.
  @inlinable
  func _areEqual(_ lhs: Value, _ rhs: Value) -> Bool {
    guard let isEqual = _isEqual else { return false }
    return isEqual.with { $0.value(lhs, rhs) }
  }

  /// Calls the handler with `change`, unless the registration ended (then `true`: nothing
  /// more to do). The handler is not released while it runs.
  @inlinable
  func _call(_ change: KeyPathChange<Root, Value>) -> Bool {
    guard _enterCall() else { return true }
    defer { _exitCall() }
    return _dispatch.with { $0.call(change, lifetime) }
  }

  /// `_call` with a change that holds `root` and the key path without retaining them, which
  /// saves four atomic reference-count operations of a delivery's dozen.
  ///
  /// The change claims references it never took, and hands them back before it dies (see
  /// `_claimUncounted(_:)`). Both objects outlive the call (`root` is the caller's, the key path
  /// the registration's); a handler that keeps the change copies it, and the copy retains them.
  @inlinable
  func _callBorrowing(_ root: Root, _ oldValue: Value, _ newValue: Value) -> Bool {
    guard _enterCall() else { return true }
    defer { _exitCall() }
    let change = KeyPathChange(
      object: _claimUncounted(root), keyPath: _claimUncounted(path), oldValue: oldValue,
      newValue: newValue)
    let delivered = _dispatch.with { $0.call(change, lifetime) }
    _handBack(change.object)
    _handBack(change.keyPath)
    return delivered
  }

  override func releaseHandler() {
    _dispatch.release()
  }

  deinit {
    // A registration that never started (its root was deleted) never ended its calls.
    _releaseHandlerOnce()
    _isEqual?.release()
    _weakRoot.release()
  }

  /// Evaluates the key path with tracking, re-attaching if it reads something else now, and
  /// returns the previous and the new value.
  @inlinable
  func evaluate(_ root: Root) -> (Value, Value)? {
    if _single {
      var value: Value?
      let read = self.read
      if _singleSlot != 0,
        _AccessRecorder.readsOnly(_singleSlot, of: rootID, { value = read(root) }),
        let value
      {
        guard _keepsValue else { return (value, value) }
        if let oldValue = _singleValue {
          _singleValue = value
          return (oldValue, value)
        }
      }
      _leaveSingleMode(root)
    }
    // Common case: the key path read the same properties as last time. One lock section checks
    // that and swaps the value, and nothing is retained to compare the reads.
    var value: Value?
    var oldValue: Value?
    var ended = false
    let keepsValue = _keepsValue
    _AccessRecorder.trackUnretained({ value = read(root) }) { slots in
      _state.withLock { state in
        guard state != nil else {
          ended = true
          return
        }
        // Safe: checked non-nil just above, under the same lock.
        guard let value, _Read.same(state!.reads, slots) else { return }
        oldValue = keepsValue ? state!.value : value
        if keepsValue { state!.value = value }
      }
    }
    if ended { return nil }
    if let oldValue, let value { return (oldValue, value) }
    // It reads something else now (a replaced intermediate, another branch): re-attach.
    let (newValue, slots) = _AccessRecorder.track { read(root) }
    let previous = _state.withLock { state -> (Value, [_Read])? in
      guard let current = state, let value = keepsValue ? current.value : newValue else {
        return nil
      }
      return (value, current.reads)
    }
    guard let (oldValue, oldReads) = previous else { return nil }
    retarget(root, oldReads, to: slots, value: newValue)
    return (oldValue, newValue)
  }

  /// Moves the single-property state under the lock (the path now reads more than that).
  @inlinable
  func _leaveSingleMode(_ root: Root) {
    guard _single else { return }
    let value = _singleValue
    _single = false
    _singleValue = nil
    _singleSlot = 0
    _state.withLock { $0?.value = value }
  }

  /// Moves the registration's entries to the slots the last evaluation read.
  @inlinable
  func retarget(_ root: Root, _ oldReads: [_Read], to slots: [_AnySlot], value: Value) {
    var kept: [_Read] = []
    var added: [_Read] = []
    for slot in slots {
      if let match = oldReads.first(where: { $0.slot === slot && $0.entry.isLive }) {
        kept.append(match)
      } else {
        added.append(_Read(slot: slot, entry: attach(to: slot)))
      }
    }
    if slots.contains(where: { !$0.isOwned(by: root) }) { _keepWeakRoot(root) }
    // Another thread may have re-attached this registration meanwhile (two properties it reads
    // changed at once on two threads): the first to commit wins, the other backs off.
    // The replaced evaluation comes out of the lock and is dropped after it: its value may be
    // the last reference to a user object (another thread's evaluation committed it meanwhile).
    let replaced = _state.withLock { state -> _Evaluation? in
      guard let current = state, _Read.sameEntries(current.reads, oldReads) else { return nil }
      state = _Evaluation(value: _keepsValue ? value : nil, reads: kept + added)
      return current
    }
    let committed = replaced != nil
    withExtendedLifetime(replaced) {}
    if committed {
      lifetime.replaceAttachments(keeping: kept.map { $0.entry }, adding: added.map { $0.entry })
    } else {
      for read in added { read.entry.deactivate() }
    }
  }

  /// Keeps a weak reference to the root, for re-evaluations triggered by other objects.
  @inlinable
  func _keepWeakRoot(_ root: Root) {
    _ = _weakRoot.get(orSet: { _WeakBox(root) })
  }

  /// The root, if it is still alive (only for paths that read other objects). No lock: the
  /// box (retained by hand, released in `deinit`) is stored once, and a weak reference is safe
  /// to load from any thread.
  @inlinable
  func _aliveRoot() -> Root? {
    _weakRoot.current?.with { $0.value }
  }

  /// Whether the root can be observed (it did not announce its deletion).
  @usableFromInline
  func _prepare(_ root: Root) -> Bool {
    !root.observation.state(of: root).isDeleted
  }

  /// The slots hold this registration (through its entries), and so does the root's list:
  /// when it ends, it drops the slots and leaves the list, which breaks both cycles.
  @usableFromInline
  func _cleanUpOnEnd(_ rootState: _ModelState) {
    lifetime.setCleanup { [self, weak rootState] in
      // Taken out and dropped after the lock: the kept value may hold the last reference to a
      // user object, whose `deinit` must not run under the lock.
      let ended = _state.withLock { state in
        defer { state = nil }
        return state
      }
      withExtendedLifetime(ended) {}
      rootState?.remove(self)
      _endCalls()
    }
  }

  /// Registers with the root's state; `nil` if the root was deleted meanwhile.
  @usableFromInline
  func _finish(_ root: Root) -> _ModelState? {
    let state = root.observation.state(of: root)
    return state.add(self) ? state : nil
  }

  override var readSlots: [_AnySlot] {
    _state.withLock { $0?.reads.map { $0.slot } ?? [] }
  }

  override func deliverDeletion(of object: AnyObject) {
    // Deletion is announced by the root itself, which is `Root`.
    let root = unsafeDowncast(object, to: Root.self)
    guard isActive else { return }
    // A write whose notification is still under way (the deletion was announced by an earlier
    // observer of the same write) has not reached this registration yet, and must not be lost:
    // the value now (the root is alive while it announces its deletion) against the last one.
    let last: Value? = _keepsValue ? (_single ? _singleValue : _state.withLock({ $0?.value })) : nil
    if let last, _isEqual != nil {
      let current = read(root)
      if !_areEqual(last, current) {
        // It changed since the last delivery: that change first, then the deletion.
        _ = _call(KeyPathChange(object: root, keyPath: path, oldValue: last, newValue: current))
      }
    }
    // The deletion goes to the deletion callback only: a change handler never hears it.
    guard _enterCall() else { return }
    defer { _exitCall() }
    _ = _dispatch.with { $0.deleted?(root, lifetime) }
  }
}

/// A registration's dispatch closure in a box retained by hand (see `_KeyPathRecord._dispatch`).
///
/// Not a `_Box` of the closure: a closure stored as a generic `_Box<Value>`'s value is kept in
/// the most general calling convention, so every call went through a reabstraction thunk that
/// copied the change on every delivery. Here the property's own type keeps the
/// convention the closure was made with.
///
/// It also holds the registration's deletion callback (`onDeletion:`), called once when the
/// root announces its deletion, so that it is released with the change handler.
@usableFromInline
final class _Dispatch<Root: ObservableModel, Value> {
  @usableFromInline
  let call: (KeyPathChange<Root, Value>, _Lifetime) -> Bool
  /// Delivers the root's deletion where the registration's delivery context says; `nil` when
  /// the registration has no deletion callback (its change handler never hears a deletion).
  @usableFromInline
  let deleted: ((Root, _Lifetime) -> Bool)?

  @usableFromInline
  init(
    _ call: @escaping (KeyPathChange<Root, Value>, _Lifetime) -> Bool,
    deletion: ((Root, _Lifetime) -> Bool)?
  ) {
    self.call = call
    self.deleted = deletion
  }
}

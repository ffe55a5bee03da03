import Synchronization

// The write path of an `@Observed` property (after `Observed`'s setter stored the value):
// find the property's slot, notify its registrations as one write (one transaction), or notify
// nobody inside `_withoutNotifications`. An announced deletion is notified as one write too
// (`_notifyingDeletion`).

/// Notifies the observers of a property after an observed set (the object's state word,
/// `stateAddress`, is not 0), given what its storage holds, `slotID` (see `_SlotID`). Returns
/// the number of a slot this call made, when nobody observed the property until now (or its
/// storage names another object's slot) but something observes every property of the object:
/// the setter stores it, then notifies it with `_notify(_:madeSlot:state:)` and the state word
/// returned. Returns `nil` when nothing is left to do.
///
/// The object comes back with the slot so that the setter keeps nothing in a register across
/// this call: its fast path (nobody observes the object) then saves none. Specialised in the
/// caller's module, so that the setter does not look up the type's metadata either.
@inlinable
@inline(never)
func _didSet<Root: ObservableModel>(
  _ owner: Root, storedSlot slotID: _SlotNumber, state stateAddress: UInt
) -> (owner: _Unretained<Root>, slot: _SlotNumber, state: UInt)? {
  if slotID != 0, _didSet(owner, slot: slotID, state: stateAddress) { return nil }
  guard let made = _slotForUnobservedSet(owner, state: stateAddress) else { return nil }
  return (_Unretained(owner), made.slot, made.state)
}

/// Notifies the observers of a property after an observed set, if `slotID` (what its storage
/// holds) names one of `owner`'s slots; returns whether it does.
///
/// Storage copied from another object's property (`_name = other._name`) names that object's
/// slot, which is none of `owner`'s.
@usableFromInline
@inline(never)
func _didSet<Root: ObservableModel>(
  _ owner: Root, slot slotID: _SlotNumber, state stateAddress: UInt
) -> Bool {
  guard let slot = _stateWord(stateAddress, slotNamed: slotID) else { return false }
  _notify(owner, slot: slot, state: stateAddress)
  return true
}

/// The slot to create for a property that nobody observed until now, if something observes
/// every property of the object, with the object's state word to notify it with (read again if
/// a lone watch ended meanwhile); otherwise `nil`.
@usableFromInline
@inline(never)
func _slotForUnobservedSet<Root: ObservableModel>(
  _ object: Root, state stateAddress: UInt
) -> (slot: _SlotNumber, state: UInt)? {
  var stateAddress = stateAddress
  if stateAddress & _loneWatchTag != 0 {
    if _loneWatchFired(object) { return nil }
    // The lone watch ended, or a state took it over since the caller read the word: then the
    // write goes the state's way (its watches include the lone one), with the word read now.
    stateAddress = object.observation._state.load(ordering: .acquiring)
    if stateAddress == 0 || stateAddress & _loneWatchTag != 0 { return nil }
  }
  // The object owns its state (one retained reference) and is alive during its own setter.
  let observed =
    _modelState(inWord: stateAddress)?.with { $0._hasAnyRecords.load(ordering: .acquiring) }
    ?? false
  guard observed, let slot = _makeSlot(object) else { return nil }
  return (slot.id, stateAddress)
}

/// Tells the observers of a slot that `_didSet(_:storedSlot:state:)` made, and the setter then
/// stored, that its property changed. Not generic: the setter calls it without the type's
/// metadata.
@usableFromInline
@inline(never)
func _notify(_ owner: AnyObject, madeSlot slotID: _SlotNumber, state: UInt) {
  // The slot was just made and adopted by the object's state, which keeps it.
  guard let slot = _stateWord(state, slotNamed: slotID) else { return }
  _notify(owner, slot: slot, state: state)
}

/// Tells the observers of `slot`, a slot of `owner`, that its property changed.
private func _notify(_ owner: AnyObject, slot: _Unretained<_AnySlot>, state stateAddress: UInt) {
  // The object owns its slots and its state, and is alive during its own setter.
  _notifyingWrite {
    slot.with { slot in
      // "Any property" registrations first, so that what they list follows the order of the
      // writes even when a key-path observer writes another property from its callback. A
      // slot exists only once the object's state does.
      _modelState(inWord: stateAddress)?.with { state in
        if state._hasAnyRecords.load(ordering: .acquiring) {
          state.propertyDidChange(owner, slot)
        }
      }
      // Registrations compare the values they read themselves (a property can change without
      // changing the value of a key path that reads it), so the slot does not.
      slot.notify(owner)
    }
  }
}

/// The slot of `object`'s that `slotID` names, if any (see `_didSet`).
func _ownSlot<Root: ObservableModel>(
  named slotID: _SlotNumber, of object: Root
) -> _Unretained<_AnySlot>? {
  _stateWord(object.observation._state.load(ordering: .acquiring), slotNamed: slotID)
}

/// The slot that `slotID` names among the slots of the object whose `ObservationStorage` word
/// is `word`. A slot exists only once the object's state does: with no state (0, or a lone
/// watch), the slot is another object's.
private func _stateWord(_ word: UInt, slotNamed slotID: _SlotNumber) -> _Unretained<_AnySlot>? {
  _modelState(inWord: word)?.with { $0.slot(named: slotID) }
}

/// Runs `notify`, which tells the observers of one write, as that write (see
/// `_notifyingChange`). Does nothing inside `_withoutNotifications`.
func _notifyingWrite(_ notify: () -> Void) {
  _ThreadState.withCurrent { thread in
    // A write that takes a value out of its property to edit it in place (see
    // `_withoutNotifications`).
    if thread.silentWrites > 0 { return }
    _notifyingChange(on: thread, notify)
  }
}

/// Runs `notify`, which tells the observers of one change (a write, or an announced deletion),
/// as one notified write: callbacks' writes and deletions nest in it, and when it is the
/// outermost change outside `coalesce`, it is one transaction, whose end its coalesced
/// registrations and its package clients (relation controllers, trackers) hear once.
func _notifyingChange(on thread: _ThreadState, _ notify: () -> Void) {
  thread.writeDepth += 1
  notify()
  thread.writeDepth -= 1
  // One change outside `coalesce` is one transaction: its coalesced registrations hear it
  // once, after all of its observers ran (and what their callbacks wrote, in further rounds).
  // The scope stays with the thread, empty, for its next write.
  if thread.writeDepth == 0, let scope = thread.writeScope, scope.depth == 0 {
    scope.flush()
  }
}

/// Runs `notify`, which tells the observers of an object that it announced its deletion, as
/// one notified write (see `_notifyingChange`), so that however many registrations and watches
/// hear it (every element of a controller whose sort reads the object), each controller and
/// tracker hears one transaction. Unlike a write, a deletion is heard inside
/// `_withoutNotifications` too.
func _notifyingDeletion(_ notify: () -> Void) {
  _ThreadState.withCurrent { thread in _notifyingChange(on: thread, notify) }
}

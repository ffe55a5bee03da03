import Synchronization

/// Whether this thread is resolving a key path by access tracking.
///
/// `@Observed` getters ask this before anything else, so an untracked read costs one
/// thread-local read and a branch (one load in a Linux executable; see `_BindingThreadLocal`'s
/// header for other platforms). The depth lives in a C thread-local variable: Swift has no
/// thread-local storage of its own, and the alternatives cost more on every delivery (a
/// process-wide count of tracking threads takes two atomic read-modify-writes per evaluation,
/// and `pthread_getspecific` is a call on Linux). Marked `pure` in C, so that callers of a
/// getter need not retain the object around the check.
@inlinable
@inline(__always)
func _isTracking() -> Bool {
  _trackingDepth() != 0
}

/// Records a read of an `@Observed` property of `object` whose storage names the slot numbered
/// `slot` (0 for none), if this thread is tracking; returns the number of the property's slot,
/// made now if the recorder needs one.
///
/// `releasenone` lets the getter skip retaining the object around this call (without it, every
/// untracked read pays a retain and release). The promise holds for everything the
/// caller can see: the only releases here are of objects the caller never had (a recorder
/// buffer replaced when it grows, a state that lost the race to be installed).
@usableFromInline
@inline(never)
@_effects(releasenone)
func _recordRead<Root: ObservableModel>(
  _ object: Root, _ slot: _SlotNumber
) -> _SlotNumber {
  guard let recorder = _ThreadState.currentRecorder else { return slot }
  // The slot a single-property registration expects, read from its root: known to be the
  // root's (a number comparison, nothing followed; storage copied into another object may
  // hold the same number, hence the owner check). Every change of such a registration comes
  // here, so it is checked first, in this function.
  if slot != 0,
    recorder.with({ $0.expects(slot, of: ObjectIdentifier(object)) })
  {
    recorder.with { $0.matchSingle() }
    return slot
  }
  return recorder.with { recorder in
    if recorder.recordsObjects {
      recorder.readAny = true
      if ObjectIdentifier(object) != recorder.element {
        recorder.record(object: object.observation.state(of: object))
      }
      return slot
    }
    // Storage copied from another object's property names that object's slot (see `_SlotID`).
    if slot != 0, let owned = _ownSlot(named: slot, of: object) {
      owned.with { recorder.record($0) }
      return slot
    }
    guard let made = _makeSlot(object) else { return 0 }
    recorder.record(made)
    return made.id
  }
}

/// Creates the slot of a property of `object`, adopted by the object's state; `nil` if the
/// object announced its deletion.
@usableFromInline
@inline(never)
@_effects(releasenone)
func _makeSlot<Root: ObservableModel>(_ object: Root) -> _AnySlot? {
  let state = object.observation.state(of: object)
  guard !state.isDeleted else { return nil }
  let slot = _AnySlot(owner: object)
  state.adopt(slot: slot)
  return slot
}

import Synchronization

/// The number of threads currently resolving a key path by access tracking.
///
/// `@Observed` getters read this with a relaxed load before anything else, so an untracked read
/// costs one load and a branch; only when some thread is tracking do getters look up the
/// thread-local recorder.
@usableFromInline
let _trackingThreads = Atomic<Int>(0)

/// Collects the `@Observed` properties (their slots) read while it is installed.
@usableFromInline
final class _AccessRecorder {
  private(set) var slots: [_AnySlot] = []

  func record(_ slot: _AnySlot) {
    // Paths read a handful of properties: a linear scan beats hashing.
    for seen in slots where seen === slot { return }
    slots.append(slot)
  }

  /// Runs `body` with a fresh recorder installed on this thread and returns what it read.
  ///
  /// Recorders nest: an inner tracking gets its own recorder, and the outer one is restored.
  @usableFromInline
  static func track(_ body: () -> Void) -> [_AnySlot] {
    let thread = _ThreadState.current
    let previous = thread.recorder
    let recorder = thread.spareRecorder ?? _AccessRecorder()
    thread.spareRecorder = nil
    thread.recorder = recorder
    _trackingThreads.add(1, ordering: .relaxed)
    body()
    _trackingThreads.subtract(1, ordering: .relaxed)
    thread.recorder = previous
    let slots = recorder.slots
    recorder.slots.removeAll(keepingCapacity: true)
    thread.spareRecorder = recorder
    return slots
  }

  /// Evaluates `body` with tracking and returns its value and what it read.
  @inlinable
  static func track<R>(_ body: () -> R) -> (R, [_AnySlot]) {
    var result: R?
    let slots = track { () -> Void in result = body() }
    // `track` runs its body exactly once, which set `result`.
    return (result!, slots)
  }
}

/// Records a read of an `@Observed` property whose slot is `slot`, if this thread is tracking.
@usableFromInline
@inline(never)
func _recordAccess(_ slot: UnsafeMutableRawPointer?) {
  guard let slot, let recorder = _ThreadState.existing?.recorder else { return }
  recorder.record(Unmanaged<_AnySlot>.fromOpaque(slot).takeUnretainedValue())
}

/// Creates the slot of a property of `object`, adopted by the object's state; `nil` if the
/// object announced its deletion.
@usableFromInline
@inline(never)
func _makeSlot<Root: ObservableModel, Value>(
  _ object: Root, _: Value.Type
) -> UnsafeMutableRawPointer? {
  let state = object.observation.state()
  guard !state.isDeleted else { return nil }
  let slot = _PropertySlot<Value>(owner: object)
  state.adopt(slot: slot)
  return Unmanaged.passUnretained(slot).toOpaque()
}

/// The slot to create for a property that nobody observed until now, if something observes
/// every property of the object; otherwise `nil`.
@usableFromInline
@inline(never)
func _slotForUnobservedSet<Root: ObservableModel, Value>(
  _ object: Root, _: Value.Type, state stateAddress: UInt
) -> UnsafeMutableRawPointer? {
  // The object owns its state (one retained reference) and is alive during its own setter.
  let observed = Unmanaged<_ModelState>.fromOpaque(UnsafeRawPointer(bitPattern: stateAddress)!)
    ._withUnsafeGuaranteedRef { $0._hasAnyRecords.load(ordering: .acquiring) }
  return observed ? _makeSlot(object, Value.self) : nil
}

/// Notifies the observers of a property after an observed set.
@usableFromInline
@inline(never)
func _didSet<Value>(
  _ owner: AnyObject, slot rawSlot: UnsafeMutableRawPointer, state stateAddress: UInt,
  old: Value, new: Value
) {
  // The object owns its slots and its state, and is alive during its own setter.
  let slot = Unmanaged<_PropertySlot<Value>>.fromOpaque(rawSlot)
  slot._withUnsafeGuaranteedRef { slot in
    let unchanged = slot.isEqual?(old, new) ?? false
    slot.notify(owner, unchanged: unchanged)
    let state = Unmanaged<_ModelState>.fromOpaque(UnsafeRawPointer(bitPattern: stateAddress)!)
    state._withUnsafeGuaranteedRef { state in
      if state._hasAnyRecords.load(ordering: .acquiring) {
        state.propertyDidChange(owner, slot)
      }
    }
  }
}

import Synchronization
internal import _BindingThreadLocal

/// Whether this thread is resolving a key path by access tracking.
///
/// `@Observed` getters ask this before anything else, so an untracked read costs one
/// thread-local read and a branch (one load in a Linux executable; see `_BindingThreadLocal`'s
/// header for other platforms). The depth lives in a C thread-local variable: Swift has no
/// thread-local storage of its own, and the alternatives cost more on every delivery. A
/// process-wide count of tracking threads took two atomic read-modify-writes per evaluation
/// (about 10 ns of a target's 95 on Linux), and `pthread_getspecific` is a call there. Marked
/// `pure` in C, so that callers of a getter need not retain the object around the check.
@inlinable
@inline(__always)
func _isTracking() -> Bool {
  _trackingDepth() != 0
}

/// Collects the `@Observed` properties (their slots) read while it is installed, or checks that
/// a single-property registration read its one slot again.
@usableFromInline
final class _AccessRecorder {
  @exclusivity(unchecked) private var buffer: UnsafeMutablePointer<Unmanaged<_AnySlot>>
  @exclusivity(unchecked) private var capacity = 4
  @exclusivity(unchecked) private var count = 0
  /// Whether recorded slots are retained (see `trackUnretained`).
  @exclusivity(unchecked) private var retainsSlots = true
  /// In single verify mode: the one slot read last time, and the object it belongs to.
  @exclusivity(unchecked) private var expectedSingle: UnsafeMutableRawPointer?
  @exclusivity(unchecked) private var expectedOwner: ObjectIdentifier?
  @exclusivity(unchecked) private var matched = 0
  @exclusivity(unchecked) private var mismatch = false
  /// In object mode (bulk watches): the states of the objects read, without slots, except
  /// the watched element's own (not created: a lone watch needs none).
  @exclusivity(unchecked) private(set) var recordsObjects = false
  @exclusivity(unchecked) private var objects: [_ModelState] = []
  @exclusivity(unchecked) private(set) var element: ObjectIdentifier?
  /// In object mode: whether any `@Observed` property was read, the element's included.
  @exclusivity(unchecked) var readAny = false

  init() { buffer = .allocate(capacity: capacity) }

  deinit {
    reset()
    buffer.deallocate()
  }

  /// Whether `slot`, read from `owner`, is the one slot a single-property verification
  /// expects.
  func expects(_ slot: UnsafeMutableRawPointer, of owner: ObjectIdentifier) -> Bool {
    expectedSingle == slot && expectedOwner == owner
  }

  /// Records the read of the expected slot in single verify mode.
  func matchSingle() { matched = 1 }

  func record(_ slot: _AnySlot) {
    if let expectedSingle {
      if expectedSingle == Unmanaged.passUnretained(slot).toOpaque() {
        matched = 1
      } else {
        mismatch = true
      }
      return
    }
    // Paths read a handful of properties: a linear scan beats hashing.
    for index in 0..<count
    where buffer[index].toOpaque() == Unmanaged.passUnretained(slot).toOpaque() {
      return
    }
    if count == capacity {
      let grown = UnsafeMutablePointer<Unmanaged<_AnySlot>>.allocate(capacity: capacity * 2)
      grown.moveInitialize(from: buffer, count: count)
      buffer.deallocate()
      buffer = grown
      capacity *= 2
    }
    (buffer + count).initialize(to: retainsSlots ? .passRetained(slot) : .passUnretained(slot))
    count += 1
  }

  /// Records a read of a property of the object whose state is `state` (object mode).
  func record(object state: _ModelState) {
    // Evaluations read a handful of objects, mostly the same one again: scan from the end.
    for index in objects.indices.reversed() where objects[index] === state { return }
    objects.append(state)
  }

  private func reset() {
    if retainsSlots {
      for index in 0..<count { buffer[index].release() }
    }
    retainsSlots = true
    if recordsObjects {
      // The caller took the list (`trackObjects` returns it): keeping its capacity here would
      // only copy a buffer nobody needs.
      objects = []
      recordsObjects = false
      element = nil
      readAny = false
    }
    count = 0
    expectedSingle = nil
    expectedOwner = nil
    matched = 0
    mismatch = false
  }

  private var collected: [_AnySlot] {
    (0..<count).map { buffer[$0].takeUnretainedValue() }
  }

  /// Runs `body` with a recorder installed on this thread; returns the slots it read.
  ///
  /// Recorders nest: an inner tracking gets its own recorder, and the outer one is restored.
  @usableFromInline
  static func trackSlots(_ body: () -> Void) -> [_AnySlot] {
    _withRecorder { recorder in
      body()
      return recorder.collected
    }
  }

  /// Runs `body` with tracking in object mode; returns the states of the objects it read
  /// other than `element` (creating them), in order of first read. No slot is made.
  static func trackObjects(excluding element: ObjectIdentifier, _ body: () -> Void)
    -> [_ModelState]
  {
    _withRecorder { recorder in
      recorder.recordsObjects = true
      recorder.element = element
      body()
      return recorder.objects
    }
  }

  /// Runs `body` with tracking in object mode; tells whether it read any `@Observed` property
  /// (of `element` or of another object, whose state is then made).
  static func readsAnything(of element: ObjectIdentifier, _ body: () -> Void) -> Bool {
    _withRecorder { recorder in
      recorder.recordsObjects = true
      recorder.element = element
      body()
      return recorder.readAny
    }
  }

  /// Runs `body` with tracking, then `check` with the slots it read, in order of first read.
  ///
  /// The slots are not retained (nothing is counted or allocated): `check` may compare their
  /// addresses with slots it holds, but must not follow them, because an object that `body`
  /// read may be gone by then. `check` runs with tracking still on, so it must not read
  /// `@Observed` properties.
  @usableFromInline
  static func trackUnretained(
    _ body: () -> Void, then check: (UnsafeBufferPointer<Unmanaged<_AnySlot>>) -> Void
  ) {
    _withRecorder { recorder in
      recorder.retainsSlots = false
      body()
      check(UnsafeBufferPointer(start: recorder.buffer, count: recorder.count))
    }
  }

  /// Runs `body` with tracking and tells whether it read the slot at `slot`, a slot of `owner`,
  /// and nothing else.
  ///
  /// The slot is passed as its address, so that nothing is retained to capture it (this runs
  /// on every change of a single-property registration).
  @usableFromInline
  static func readsOnly(
    _ slot: UnsafeMutableRawPointer, of owner: ObjectIdentifier, _ body: () -> Void
  ) -> Bool {
    _withRecorder { recorder in
      recorder.expectedSingle = slot
      recorder.expectedOwner = owner
      body()
      return !recorder.mismatch && recorder.matched == 1
    }
  }

  private static func _withRecorder<R>(_ body: (_AccessRecorder) -> R) -> R {
    _ThreadState.currentUnmanaged._withUnsafeGuaranteedRef { thread in
      let previous = thread.recorder
      let recorder: Unmanaged<_AccessRecorder>
      if thread.depth == 0 {
        recorder = thread.primaryRecorder
      } else {
        if thread.depth > thread.recorders.count { thread.recorders.append(_AccessRecorder()) }
        // The thread state owns its recorders; this one stays in `recorders` while in use.
        recorder = Unmanaged.passUnretained(thread.recorders[thread.depth - 1])
      }
      thread.depth += 1
      thread.recorder = recorder
      _binding_setTrackingDepth(thread.depth)
      let result = recorder._withUnsafeGuaranteedRef { body($0) }
      thread.recorder = previous
      thread.depth -= 1
      _binding_setTrackingDepth(thread.depth)
      recorder._withUnsafeGuaranteedRef { $0.reset() }
      return result
    }
  }

  /// Evaluates `body` with tracking and returns its value and what it read.
  @inlinable
  static func track<R>(_ body: () -> R) -> (R, [_AnySlot]) {
    var result: R?
    let slots = trackSlots { result = body() }
    // `trackSlots` runs its body exactly once, which set `result`.
    return (result!, slots)
  }
}

/// Records a read of an `@Observed` property of `object` whose slot is `slot`, if this thread
/// is tracking; returns the property's slot, made now if the recorder needs one.
///
/// `releasenone` lets the getter skip retaining the object around this call (without it, every
/// untracked read pays a retain and release: 3 → 12 ns). The promise holds for everything the
/// caller can see: the only releases here are of objects the caller never had (a recorder
/// buffer replaced when it grows, a state that lost the race to be installed).
@usableFromInline
@inline(never)
@_effects(releasenone)
func _recordRead<Root: ObservableModel>(
  _ object: Root, _ slot: UnsafeMutableRawPointer?
) -> UnsafeMutableRawPointer? {
  guard let thread = _ThreadState.existingUnmanaged,
    let recorder = thread._withUnsafeGuaranteedRef({ $0.recorder })
  else { return slot }
  // The slot a single-property registration expects, read from its root: known to be the
  // root's (a pointer comparison, nothing followed; storage copied into another object may
  // hold the same address, hence the owner check). Every change of such a registration comes
  // here, so it is checked first, in this function.
  if let slot,
    recorder._withUnsafeGuaranteedRef({
      $0.expects(_slotAddress(of: slot), of: ObjectIdentifier(object))
    })
  {
    recorder._withUnsafeGuaranteedRef { $0.matchSingle() }
    return slot
  }
  return recorder._withUnsafeGuaranteedRef { recorder in
    if recorder.recordsObjects {
      recorder.readAny = true
      if ObjectIdentifier(object) != recorder.element {
        recorder.record(object: object.observation.state(of: object))
      }
      return slot
    }
    // Storage copied from another object's property holds that object's slot (see `_didSet`).
    let owned = slot.flatMap { _isOwnSlot($0, of: object) ? $0 : nil }
    guard let slot = owned ?? _makeSlot(object) else { return nil }
    Unmanaged<_AnySlot>.fromOpaque(_slotAddress(of: slot))._withUnsafeGuaranteedRef {
      recorder.record($0)
    }
    return slot
  }
}

/// Creates the slot of a property of `object`, adopted by the object's state; `nil` if the
/// object announced its deletion.
@usableFromInline
@inline(never)
@_effects(releasenone)
func _makeSlot<Root: ObservableModel>(_ object: Root) -> UnsafeMutableRawPointer? {
  let state = object.observation.state(of: object)
  guard !state.isDeleted else { return nil }
  let slot = _AnySlot(owner: object)
  state.adopt(slot: slot)
  return slot.reference
}

public import _BindingThreadLocal

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

// Thread-confined state: what one thread keeps for itself while it reads, writes and
// coalesces (its `_ThreadState`, the access recorders that resolve key paths, the coalescing
// scopes, the stack of bindings it is applying), found through a C thread-local pointer.
//
// One of Binding's few files with unsafe code (`UnretainedReferences.swift` lists them). The
// invariants, for every type here:
// - **Confinement**: an object here is touched only by the thread that made it, so its fields
//   need no lock and no run-time exclusivity check (`@exclusivity(unchecked)`), and no access
//   to a field stays open while other code runs (a scope swaps its lists out before it
//   delivers).
// - **Lifetime**: a thread's state lives until the thread exits (a POSIX thread-specific key
//   owns it), and the state owns its recorders, so the thread uses both unretained.
// - **Stack-linked nodes**: a node linked from the thread's state (an application of a
//   binding, `apply(binding:_:orKeep:describing:)`) lives in the frame that links it and is
//   unlinked before that frame returns.
// What it buys: the benchmark's rows one target / floor line (every change resolves its key path
// through the recorder) and controller move 10^4 (every transaction opens and closes a scope).
// `ThreadConfinementTests` checks each invariant.
//
// The C module `_BindingThreadLocal` holds what Swift cannot declare (thread-local variables)
// and two hints that must inline into clients' code: ThreadSanitizer's lock annotations and a
// cache prefetch. This is the one file that imports it, `public`ly: inlinable code may use only
// what a `public import` brings, and each wrapper below must inline into clients' specialised
// code as one load or one instruction. A prefetch never faults, whatever the address, and the
// annotations do nothing outside ThreadSanitizer.

/// Per-thread state of the observation core: the access recorder used to resolve key paths,
/// the open coalescing scope, and the bindings being applied (to stop re-entrant loops).
///
/// The state is per thread rather than per task because everything here is synchronous and per
/// thread by contract (coalescing does not span `await`). A POSIX thread-specific key owns it
/// (its destructor releases the state when the thread exits); a C thread-local pointer
/// (`_BindingThreadLocal`) finds it, with one load (in a Linux executable; see the header for
/// other platforms) instead of a `pthread_getspecific` call on every write.
final class _ThreadState {
  /// The innermost access recorder, if key-path tracking is running on this thread (unowned:
  /// the recorder is owned by `recorders`, and reading it on every tracked read must not
  /// retain).
  @exclusivity(unchecked) var recorder: _Unretained<_AccessRecorder>?
  /// The recorder of the outermost tracking on this thread (owned by `primaryOwner`).
  let primaryRecorder: _Unretained<_AccessRecorder>
  private let primaryOwner: _AccessRecorder
  /// The recorders of nested trackings on this thread, one per level, reused.
  @exclusivity(unchecked) var recorders: [_AccessRecorder] = []

  init() {
    primaryOwner = _AccessRecorder()
    primaryRecorder = _Unretained(primaryOwner)
  }
  /// How many recorders are in use (the nesting depth of tracking).
  @exclusivity(unchecked) var depth = 0
  /// The coalescing scope open on this thread, if any.
  @exclusivity(unchecked) var coalescing: _CoalescingScope?
  /// How many writes of `@Observed` properties (or announced deletions) are notifying their
  /// observers on this thread (a callback's write nests in the write that called it).
  @exclusivity(unchecked) var writeDepth = 0
  /// The transaction of the outermost write, created when a coalesced registration hears it
  /// outside any `coalesce` block, and delivered when that write's observers have all run;
  /// then kept, empty, for the thread's next write.
  @exclusivity(unchecked) var writeScope: _CoalescingScope?
  /// How many `_withoutNotifications` blocks are open on this thread: writes made inside them
  /// notify nobody.
  @exclusivity(unchecked) var silentWrites = 0
  /// The innermost binding being applied on this thread, linked to the ones it runs inside
  /// (see `_BindingGuard.apply`: each lives on the stack frame applying it).
  @exclusivity(unchecked) var applying: UnsafeMutablePointer<_Applying>?

  /// A binding being applied on this thread.
  struct _Applying {
    /// The binding's guard.
    let binding: ObjectIdentifier
    /// Applies the newest value that came back to the binding while it applied, if any.
    var next: (() -> Void)?
    /// The application this one runs inside, if any.
    let outer: UnsafeMutablePointer<_Applying>?

    init(binding: ObjectIdentifier, outer: UnsafeMutablePointer<_Applying>?) {
      self.binding = binding
      self.outer = outer
    }
  }

  /// A value the package's other modules set around a write (see `_withEditHint`).
  var clientValue: AnyObject?
  /// Whether this is the process's main thread, found on first use (`Thread.isMainThread`
  /// costs two system calls on Linux).
  private(set) lazy var isMainThread: Bool = _currentThreadIsMain()

  /// The calling thread's state, created on first use and released when the thread exits.
  static var current: _ThreadState { currentUnmanaged.takeUnretainedValue() }

  /// Runs `body` with the calling thread's state, created on first use, counting nothing (the
  /// thread owns its state until it exits).
  @inline(__always)
  static func withCurrent<R>(_ body: (_ThreadState) throws -> R) rethrows -> R {
    try currentUnmanaged._withUnsafeGuaranteedRef(body)
  }

  /// The innermost access recorder of the calling thread, if it is tracking; unretained (the
  /// thread's state owns its recorders, and only this thread uses them).
  @inline(__always)
  static var currentRecorder: _Unretained<_AccessRecorder>? {
    existingUnmanaged?._withUnsafeGuaranteedRef { $0.recorder }
  }

  /// An identity of the calling thread, stable while it runs (its state's address).
  static var currentKey: UInt { UInt(bitPattern: currentUnmanaged.toOpaque()) }

  /// Whether the calling thread is the process's main thread (asked once per thread).
  static var currentIsMain: Bool { withCurrent { $0.isMainThread } }

  /// The calling thread's state, unretained (the thread owns it until it exits).
  fileprivate static var currentUnmanaged: Unmanaged<_ThreadState> {
    if let raw = _binding_threadState() { return Unmanaged<_ThreadState>.fromOpaque(raw) }
    let state = Unmanaged.passRetained(_ThreadState())
    pthread_setspecific(_threadStateKey, state.toOpaque())
    _binding_setThreadState(state.toOpaque())
    return state
  }

  /// The calling thread's state if it was already created, without creating it.
  static var existing: _ThreadState? { existingUnmanaged?.takeUnretainedValue() }

  /// The calling thread's state if it was already created, unretained.
  private static var existingUnmanaged: Unmanaged<_ThreadState>? {
    guard let raw = _binding_threadState() else { return nil }
    return Unmanaged<_ThreadState>.fromOpaque(raw)
  }
}

#if canImport(Darwin)
  private func _releaseThreadState(_ raw: UnsafeMutableRawPointer) {
    _binding_setThreadState(nil)
    Unmanaged<_ThreadState>.fromOpaque(raw).release()
  }
#else
  private func _releaseThreadState(_ raw: UnsafeMutableRawPointer?) {
    guard let raw else { return }
    _binding_setThreadState(nil)
    Unmanaged<_ThreadState>.fromOpaque(raw).release()
  }
#endif

/// The thread-specific key holding each thread's `_ThreadState` (retained once per thread), so
/// that it is released when the thread exits; the destructor also clears the thread-local
/// pointer, so a later use on the exiting thread makes a new state instead of following it.
private let _threadStateKey: pthread_key_t = {
  var key = pthread_key_t()
  let result = pthread_key_create(&key, _releaseThreadState)
  precondition(result == 0, "Binding: pthread_key_create failed (\(result))")
  return key
}()

extension _ThreadState {
  /// Applies the binding `id` with `body`, then what came back meanwhile, until nothing new
  /// does; or, if the binding is being applied on this thread already (a value came back to
  /// it), keeps what `later` makes, the newest only, for that application to run when its
  /// current write returns (see `_BindingGuard`).
  ///
  /// The applications running on a thread are a list through the stack frames applying them,
  /// linked from the thread's state (`applying`): each node lives in the frame of this call
  /// and is unlinked before the frame returns, so the list never points at a dead frame.
  static func apply(
    binding id: ObjectIdentifier, _ body: () -> Void, orKeep later: () -> (() -> Void),
    describing binding: () -> String
  ) {
    let thread = currentUnmanaged
    let outer = thread._withUnsafeGuaranteedRef { $0.applying }
    var applying = outer
    while let application = applying {
      if application.pointee.binding == id {
        application.pointee.next = later()
        return
      }
      applying = application.pointee.outer
    }
    var application = _Applying(binding: id, outer: outer)
    withUnsafeMutablePointer(to: &application) { application in
      thread._withUnsafeGuaranteedRef { $0.applying = application }
      defer { thread._withUnsafeGuaranteedRef { $0.applying = outer } }
      body()
      var rounds = 1
      while let next = application.pointee.next {
        application.pointee.next = nil
        rounds += 1
        if rounds > maximumCoalescingRounds {
          fatalError(
            """
            Binding: the binding \(binding()) kept receiving new values while it applied \
            them, for \(maximumCoalescingRounds) rounds without settling: bindings (or \
            observers that write their sources) form a cycle whose transforms never agree.
            """)
        }
        next()
      }
    }
  }
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
  /// In single verify mode: the number of the one slot read last time (0 outside that mode),
  /// and the object it belongs to.
  @exclusivity(unchecked) private var expectedSingle: _SlotNumber = 0
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

  /// Whether the slot numbered `slotID` (not 0), read from `owner`, is the one slot a
  /// single-property verification expects.
  func expects(_ slotID: _SlotNumber, of owner: ObjectIdentifier) -> Bool {
    expectedSingle == slotID && expectedOwner == owner
  }

  /// Records the read of the expected slot in single verify mode.
  func matchSingle() { matched = 1 }

  func record(_ slot: _AnySlot) {
    if expectedSingle != 0 {
      if expectedSingle == slot.id {
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
    expectedSingle = 0
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
  static func trackUnretained(_ body: () -> Void, then check: (_RecordedSlots) -> Void) {
    _withRecorder { recorder in
      recorder.retainsSlots = false
      body()
      check(
        _RecordedSlots(buffer: UnsafeBufferPointer(start: recorder.buffer, count: recorder.count)))
    }
  }

  /// Runs `body` with tracking and tells whether it read the slot numbered `slotID` (not 0), a
  /// slot of `owner`, and nothing else.
  ///
  /// The slot is passed as its number, so that nothing is retained to capture it (this runs
  /// on every change of a single-property registration).
  @usableFromInline
  static func readsOnly(
    _ slotID: _SlotNumber, of owner: ObjectIdentifier, _ body: () -> Void
  ) -> Bool {
    _withRecorder { recorder in
      recorder.expectedSingle = slotID
      recorder.expectedOwner = owner
      body()
      return !recorder.mismatch && recorder.matched == 1
    }
  }

  private static func _withRecorder<R>(_ body: (_AccessRecorder) -> R) -> R {
    _ThreadState.currentUnmanaged._withUnsafeGuaranteedRef { thread in
      let previous = thread.recorder
      let recorder: _Unretained<_AccessRecorder>
      if thread.depth == 0 {
        recorder = thread.primaryRecorder
      } else {
        if thread.depth > thread.recorders.count { thread.recorders.append(_AccessRecorder()) }
        // The thread state owns its recorders; this one stays in `recorders` while in use.
        recorder = _Unretained(thread.recorders[thread.depth - 1])
      }
      thread.depth += 1
      thread.recorder = recorder
      _binding_setTrackingDepth(thread.depth)
      let result = recorder.with { body($0) }
      thread.recorder = previous
      thread.depth -= 1
      _binding_setTrackingDepth(thread.depth)
      recorder.with { $0.reset() }
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

/// The slots a tracking read, unretained, in order of first read (see
/// `_AccessRecorder.trackUnretained`): valid only during the call that hands them out, and only
/// to compare with slots the caller holds, never to follow.
@usableFromInline
struct _RecordedSlots {
  @usableFromInline
  let buffer: UnsafeBufferPointer<Unmanaged<_AnySlot>>

  @usableFromInline
  init(buffer: UnsafeBufferPointer<Unmanaged<_AnySlot>>) { self.buffer = buffer }

  @inlinable
  var count: Int { buffer.count }

  /// Whether the slot read at `index` is `slot` (by address).
  @inlinable
  func isSlot(at index: Int, _ slot: _AnySlot) -> Bool {
    buffer[index].toOpaque() == Unmanaged.passUnretained(slot).toOpaque()
  }
}

/// The coalescing transaction open on one thread.
@usableFromInline
final class _CoalescingScope {
  // No run-time exclusivity checks (a relation controller's move pays for them, see the file's
  // header): a scope belongs to one thread, and no access to these fields stays open while
  // other code runs (`flush` swaps the lists out
  // before it delivers anything, and releases what it delivered before it touches them again:
  // see `CoalescingTests/aDeinitThatWritesWhileAScopeFlushesIsHeard(_:)`).
  @exclusivity(unchecked) var depth = 0
  @exclusivity(unchecked) private var pending: [ObjectIdentifier: _Pending] = [:]
  @exclusivity(unchecked) private var order: [_Pending] = []
  /// Who waits for the end of the transaction (see `_afterCurrentTransaction`), in order.
  @exclusivity(unchecked) private var ending: [any _TransactionObserver] = []

  /// Tells `observer` when the transaction ends, after the coalesced registrations it heard.
  func onEnd(_ observer: any _TransactionObserver) {
    ending.append(observer)
  }

  /// Whether `record` already waits for the end of the transaction.
  @usableFromInline
  func isPending(_ record: _Record) -> Bool {
    pending[ObjectIdentifier(record)] != nil
  }

  /// Defers `evaluate` to the end of the transaction, once per registration.
  @usableFromInline
  func enqueue(_ record: _Record, root: AnyObject, evaluate: @escaping () -> Void) {
    if pending[ObjectIdentifier(record)] != nil { return }
    add(_PendingEvaluation(record: record, root: root, evaluate: evaluate))
  }

  func enqueue(_ record: _AnyRecord, object: AnyObject, slot: _AnySlot) {
    if let existing = pending[ObjectIdentifier(record)] as? _PendingEvents {
      if !existing.slots.contains(where: { $0 === slot }) { existing.slots.append(slot) }
      return
    }
    add(_PendingEvents(record: record, object: object, slot: slot))
  }

  func enqueueDeletion(_ record: _AnyRecord, object: AnyObject) {
    if let existing = pending[ObjectIdentifier(record)] as? _PendingEvents {
      existing.isDeletion = true
      return
    }
    let events = _PendingEvents(record: record, object: object, slot: nil)
    events.isDeletion = true
    add(events)
  }

  private func add(_ item: _Pending) {
    pending[ObjectIdentifier(item.record)] = item
    order.append(item)
  }

  /// Delivers everything pending, round after round, until nothing new arrives.
  func flush() {
    depth = 1
    defer { depth = 0 }
    var rounds = 0
    while !order.isEmpty || !ending.isEmpty {
      rounds += 1
      if rounds > maximumCoalescingRounds {
        let paths = order.map { $0.description } + ending.map { "end of \($0._observerName)" }
        fatalError(
          """
          Binding: coalesced callbacks kept changing values for \(maximumCoalescingRounds) \
          rounds without settling; still changing: \(paths.joined(separator: ", ")).
          """)
      }
      var batch: [_Pending] = []
      swap(&batch, &order)
      if !pending.isEmpty {
        pending.removeAll(keepingCapacity: pending.capacity <= _keptBufferCapacity)
      }
      var observers: [any _TransactionObserver] = []
      swap(&observers, &ending)
      for item in batch where item.isDeletion { item.deliver() }
      for item in batch where !item.isDeletion { item.deliver() }
      for observer in observers { observer._transactionEnded() }
      // Emptied before `order` and `ending` are touched: releasing an item may run a deinit
      // (an item holds its root), which may write and so append to `order` (delivered in the
      // next round). Emptied by `_recycle`, the deinit ran inside its access to `order`, and
      // the item it appended went out with `batch`.
      batch.removeAll(keepingCapacity: true)
      observers.removeAll(keepingCapacity: true)
      // The buffers serve the next round, or the next transaction (the scope of a write is
      // kept by its thread): a write a controller hears then allocates none.
      _recycle(&batch, into: &order)
      _recycle(&observers, into: &ending)
    }
  }
}

// MARK: - The C module

/// The calling thread's access-tracking depth (`_isTracking()`): one thread-local load, `pure`.
@inlinable
@inline(__always)
func _trackingDepth() -> Int {
  _binding_trackingDepth()
}

/// Tells ThreadSanitizer, if the process runs under it, that the lock at `address` was acquired.
@inlinable
@inline(__always)
func _tsanAcquire(_ address: UnsafeRawPointer) {
  _binding_tsanAcquire(address)
}

/// Tells ThreadSanitizer, if the process runs under it, that the lock at `address` is released.
@inlinable
@inline(__always)
func _tsanRelease(_ address: UnsafeRawPointer) {
  _binding_tsanRelease(address)
}

/// How many of the package's locks the calling thread holds (counted in debug builds only).
@inlinable
@inline(__always)
func _locksHeld() -> Int {
  _binding_locksHeld()
}

/// Adds `delta` to the count of locks the calling thread holds (debug builds only).
@inlinable
@inline(__always)
func _addLocksHeld(_ delta: Int) {
  _binding_addLocksHeld(delta)
}

/// Asks the processor to bring the cache line of `address` in for reading (a hint: no fault,
/// no effect on what the program computes). One instruction.
@inlinable
@inline(__always)
package func _cachePrefetch(_ address: UnsafeRawPointer?) {
  _binding_prefetch(address)
}

import Observation
import Synchronization

/// Everything observation keeps for one observed object, created on first registration.
///
/// The object's `ObservationStorage` owns it (one retained pointer), so it dies with the object;
/// its `deinit` ends every registration rooted at the object. It is one allocation (its lock
/// and lists are inline; the lists allocate only when used), because a relation controller
/// makes one for each of its elements.
@usableFromInline
final class _ModelState: _Lock<_ModelState.State>, @unchecked Sendable {
  // `@unchecked Sendable` restates `_Lock`'s: `State` is touched only under the lock, and the
  // other stored properties are atomics.
  @usableFromInline
  struct State {
    /// Slots of the object's properties (strong: the wrappers point at them unowned).
    var slots: [_AnySlot] = []
    /// The newest list of `slotDirectory`; it keeps the older ones.
    var slotList: _SlotList?
    /// Registrations whose root is this object.
    var records: [_Record] = []
    /// Registrations that hear every property change and deletion of this object.
    var anyRecords: [_AnyRecord] = []
    /// Bulk watches that read the object (see `_Watch`); dead ones are dropped lazily. The
    /// first is kept apart, so that an object read by one controller's elements allocates no
    /// list.
    var firstWatch: _Watch?
    var moreWatches: [_Watch] = []

    /// Removes the registrations that ended from `records` and returns them, for the caller
    /// to drop once the lock is released: the last reference to a registration may hold its
    /// handler, and so the last reference to a user object, whose `deinit` must not run under
    /// the lock. Each registration is asked once (another thread may end one meanwhile: it
    /// goes either way, never removed without being returned). Allocates only when one ended.
    static func takeEnded<R: _Record>(_ records: inout [R]) -> [R] {
      var ended: [R] = []
      records.removeAll { record in
        guard !record.isActive else { return false }
        ended.append(record)
        return true
      }
      return ended
    }

    /// The live watches (the first, then the others), after dropping the dead ones.
    mutating func liveWatches() -> (first: _Watch?, more: [_Watch]) {
      if let first = firstWatch, !first.isLive { firstWatch = nil }
      if !moreWatches.isEmpty {
        moreWatches.removeAll { !$0.isLive }
        if firstWatch == nil, !moreWatches.isEmpty { firstWatch = moreWatches.removeFirst() }
      }
      return (firstWatch, moreWatches)
    }
  }

  /// Whether `anyRecords` or `watches` may hold a live registration; read on every observed
  /// set.
  let _hasAnyRecords = Atomic<Bool>(false)
  /// Whether the object announced its deletion (or died); written under the lock, so that
  /// checking it under the lock orders it with adding registrations.
  let _isDeleted = Atomic<Bool>(false)
  /// The numbers of the object's slots, read without the lock (`slot(named:)`).
  private let slotDirectory = _SlotDirectory()
  /// The `_RegistrarBox` of a model adopting `ObservationBridging`, made on its first access.
  private let _registrar = _OnceReference<_RegistrarBox>()

  init() { super.init(State()) }

  deinit { _registrar.release() }

  /// Swift Observation's registrar, for models adopting `ObservationBridging`; created on
  /// first use.
  var registrar: ObservationRegistrar {
    _registrar.get(orSet: { _RegistrarBox() }).with { $0.registrar }
  }

  /// Ends every registration on the object; called by the object's `deinit`, so that they end
  /// when the object dies even if another thread briefly holds this state.
  func objectDidDie() {
    let (records, anyRecords) = withLock { state in
      let taken = (state.records, state.anyRecords)
      state.records = []
      state.anyRecords = []
      state.firstWatch = nil
      state.moreWatches = []
      // Nothing is added once the object is gone (as after a deletion).
      _isDeleted.store(true, ordering: .releasing)
      return taken
    }
    _hasAnyRecords.store(false, ordering: .releasing)
    for record in records { record.cancel() }
    for record in anyRecords { record.cancel() }
  }

  var isDeleted: Bool { _isDeleted.load(ordering: .acquiring) }

  /// Keeps `slot` alive as long as the object.
  func adopt(slot: _AnySlot) {
    withLock { state in
      state.slots.append(slot)
      slotDirectory.add(slot, newest: &state.slotList)
    }
  }

  /// The slot of the object's that `id` (what `@Observed` storage holds) names, without the
  /// lock; `nil` if none of its slots has that number.
  ///
  /// A property's storage can be copied into another object (`_name = other._name`), slot
  /// number and all; it must not be followed (its object may be gone), so the accessors look
  /// it up here: a slot listed here is one of this object's, alive as long as the object.
  func slot(named id: _SlotNumber) -> _Unretained<_AnySlot>? { slotDirectory.slot(named: id) }

  /// Adds a registration rooted at the object, dropping the ones that have ended.
  ///
  /// Returns `false` (and adds nothing) if the object announced its deletion.
  func add(_ record: _Record) -> Bool {
    let (added, obsolete) = withLock { state -> (Bool, [_Record]) in
      guard !isDeleted else { return (false, []) }
      // Registrations whose target died are released here at the latest.
      let obsolete = state.records.filter { $0.isObsolete }
      state.records.removeAll { $0.isObsolete }
      state.records.append(record)
      return (true, obsolete)
    }
    for record in obsolete { record.cancel() }
    return added
  }

  /// Adds an "any property" registration, dropping the ones that have ended.
  func add(any record: _AnyRecord) -> Bool {
    let (added, ended) = withLock { state -> (Bool, [_AnyRecord]) in
      guard !isDeleted else { return (false, []) }
      let ended = State.takeEnded(&state.anyRecords)
      state.anyRecords.append(record)
      _hasAnyRecords.store(true, ordering: .releasing)
      return (true, ended)
    }
    withExtendedLifetime(ended) {}
    return added
  }

  /// Removes a registration that ended.
  func remove(_ record: _Record) {
    withLock { state in state.records.removeAll { $0 === record } }
  }

  /// The live registrations rooted at the object.
  func activeRecords() -> [_Record] {
    let (active, ended) = withLock { state in
      let ended = State.takeEnded(&state.records)
      return (state.records, ended)
    }
    withExtendedLifetime(ended) {}
    return active
  }

  /// Tells the "any property" registrations and the watches that the property of `slot`
  /// changed.
  func propertyDidChange(_ object: AnyObject, _ slot: _AnySlot) {
    let (records, watches, ended) = withLock { state in
      let ended = State.takeEnded(&state.anyRecords)
      let watches = state.liveWatches()
      if state.anyRecords.isEmpty && watches.first == nil {
        _hasAnyRecords.store(false, ordering: .releasing)
      }
      return (state.anyRecords, watches, ended)
    }
    withExtendedLifetime(ended) {}
    for record in records { record.propertyDidChange(object, slot) }
    watches.first?.fire(object, deleted: false)
    for watch in watches.more { watch.fire(object, deleted: false) }
  }

  /// Adds a watch; `false` (and nothing added) if the object announced its deletion or died.
  func add(_ watch: _Watch) -> Bool {
    withLock { state in
      guard !isDeleted else { return false }
      if let first = state.firstWatch, first.isLive {
        // Dead entries are dropped when the list reaches a power of two: amortised O(1).
        let count = state.moreWatches.count
        if count >= 8 && count & (count - 1) == 0 { state.moreWatches.removeAll { !$0.isLive } }
        state.moreWatches.append(watch)
      } else {
        state.firstWatch = watch
      }
      _hasAnyRecords.store(true, ordering: .releasing)
      return true
    }
  }

  /// The live watch of `sink` for `element` that read only the element (a lone watch this
  /// state took over), other than `except`.
  func loneWatch(of sink: _WatchSink, element: ObjectIdentifier, except: _Watch?) -> _Watch? {
    let bits = UInt(bitPattern: element)
    func matches(_ watch: _Watch) -> Bool {
      watch.sink === sink && watch.elementBits == bits && watch.readsOnlyElement
        && watch !== except
    }
    return withLock { state in
      let (first, more) = state.liveWatches()
      if let first, matches(first) { return first }
      return more.first(where: matches)
    }
  }

  /// Marks the object deleted and returns everything that must hear about it.
  func markDeleted() -> (
    slots: [_AnySlot], records: [_Record], anyRecords: [_AnyRecord], watches: [_Watch]
  )? {
    // Everything is taken out under the lock and sorted after it: the registrations that ended
    // are dropped here, and their last reference may hold a user object (see `takeEnded`).
    let taken = withLock { state -> (State, [_Watch])? in
      guard !isDeleted else { return nil }
      _isDeleted.store(true, ordering: .releasing)
      _hasAnyRecords.store(false, ordering: .releasing)
      let live = state.liveWatches()
      let watches = live.first.map { [$0] + live.more } ?? []
      var taken = State()
      swap(&taken, &state)
      state.slots = taken.slots
      state.slotList = taken.slotList
      return (taken, watches)
    }
    guard let (state, watches) = taken else { return nil }
    return (
      state.slots, state.records.filter { $0.isActive }, state.anyRecords.filter { $0.isActive },
      watches
    )
  }
}

/// Holds a bridging model's `ObservationRegistrar` (a separate allocation, made only for models
/// that adopt `ObservationBridging`).
final class _RegistrarBox: Sendable {
  let registrar = ObservationRegistrar()
}

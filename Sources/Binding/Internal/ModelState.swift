import Observation
import Synchronization

/// Everything observation keeps for one observed object, created on first registration.
///
/// The object's `ObservationStorage` owns it (one retained pointer), so it dies with the object;
/// its `deinit` ends every registration rooted at the object.
@usableFromInline
final class _ModelState: Sendable {
  struct State {
    /// Slots of the object's properties (strong: the wrappers point at them unowned).
    var slots: [_AnySlot] = []
    /// Registrations whose root is this object.
    var records: [_Record] = []
    /// Registrations that hear every property change and deletion of this object.
    var anyRecords: [_AnyRecord] = []
    var isDeleted = false
  }

  let _state = _Locked(State())
  /// Whether `anyRecords` may hold a live registration; read on every observed set.
  let _hasAnyRecords = Atomic<Bool>(false)
  let _isDeleted = Atomic<Bool>(false)
  /// Swift Observation's registrar, for models adopting `ObservationBridging`.
  let registrar = ObservationRegistrar()

  /// Ends every registration on the object; called by the object's `deinit`, so that they end
  /// when the object dies even if another thread briefly holds this state.
  func objectDidDie() {
    let (records, anyRecords) = _state.withLock { state in
      let taken = (state.records, state.anyRecords)
      state.records = []
      state.anyRecords = []
      state.isDeleted = true
      return taken
    }
    _hasAnyRecords.store(false, ordering: .releasing)
    for record in records { record.cancel() }
    for record in anyRecords { record.cancel() }
  }

  var isDeleted: Bool { _isDeleted.load(ordering: .acquiring) }

  /// Keeps `slot` alive as long as the object.
  func adopt(slot: _AnySlot) {
    _state.withLock { $0.slots.append(slot) }
  }

  /// Adds a registration rooted at the object, dropping the ones that have ended.
  ///
  /// Returns `false` (and adds nothing) if the object announced its deletion.
  func add(_ record: _Record) -> Bool {
    let (added, obsolete) = _state.withLock { state -> (Bool, [_Record]) in
      guard !state.isDeleted else { return (false, []) }
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
    _state.withLock { state in
      guard !state.isDeleted else { return false }
      state.anyRecords.removeAll { !$0.isActive }
      state.anyRecords.append(record)
      _hasAnyRecords.store(true, ordering: .releasing)
      return true
    }
  }

  /// Removes a registration that ended.
  func remove(_ record: _Record) {
    _state.withLock { state in state.records.removeAll { $0 === record } }
  }

  /// The live registrations rooted at the object.
  func activeRecords() -> [_Record] {
    _state.withLock { state in
      state.records.removeAll { !$0.isActive }
      return state.records
    }
  }

  /// Tells the "any property" registrations that the property of `slot` changed.
  func propertyDidChange(_ object: AnyObject, _ slot: _AnySlot) {
    let records = _state.withLock { state in
      state.anyRecords.removeAll { !$0.isActive }
      if state.anyRecords.isEmpty { _hasAnyRecords.store(false, ordering: .releasing) }
      return state.anyRecords
    }
    for record in records { record.propertyDidChange(object, slot) }
  }

  /// Marks the object deleted and returns everything that must hear about it.
  func markDeleted() -> (slots: [_AnySlot], records: [_Record], anyRecords: [_AnyRecord])? {
    _state.withLock { state in
      guard !state.isDeleted else { return nil }
      state.isDeleted = true
      _isDeleted.store(true, ordering: .releasing)
      _hasAnyRecords.store(false, ordering: .releasing)
      let slots = state.slots
      let records = state.records.filter { $0.isActive }
      let anyRecords = state.anyRecords.filter { $0.isActive }
      state.records = []
      state.anyRecords = []
      return (slots, records, anyRecords)
    }
  }
}

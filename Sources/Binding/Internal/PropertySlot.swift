import Synchronization

/// The part of a slot entry that other threads may touch: its liveness flag.
///
/// Cancelling a registration from any thread only clears this flag; the entry is unlinked from
/// its slot by the next write or registration of that property (which the model's threading
/// contract already serialises), so the entry list itself needs no lock.
class _EntryBase {
  final let _live = Atomic<Bool>(true)

  final var isLive: Bool { _live.load(ordering: .acquiring) }

  /// Marks the entry dead; it receives nothing from now on.
  final func deactivate() { _live.store(false, ordering: .releasing) }
}

/// One observer of one property: a closure that receives the object, the old and the new value.
final class _SlotEntry<Root: AnyObject, Value>: _EntryBase {
  /// Whether the entry hears sets that store an equal value.
  let everySet: Bool
  /// Delivers a change; returns `false` when the observer is gone for good (its target died).
  let deliver: (Root, Value, Value) -> Bool

  init(everySet: Bool, deliver: @escaping (Root, Value, Value) -> Bool) {
    self.everySet = everySet
    self.deliver = deliver
  }
}

/// The observers of one `@Observed` property of one object.
///
/// The wrapper keeps an unowned pointer to its slot; the object's `_ModelState` owns it, so the
/// slot lives exactly as long as the object. Entries are kept in a manually managed buffer of
/// retained pointers so that walking them on every change costs no reference counting.
///
/// - Important: The entry list is read and written only by writes and registrations of this
///   property, which the model's threading contract serialises (like any write of a stored
///   property). Other threads only flip an entry's atomic liveness flag.
final class _PropertySlot<Root: AnyObject, Value> {
  /// The property's key path, reported to "any property" observers.
  let keyPath: KeyPath<Root, Value>
  /// Equality of the value type, when it is `Equatable`.
  let isEqual: ((Value, Value) -> Bool)?

  private var entries: UnsafeMutablePointer<Unmanaged<_SlotEntry<Root, Value>>>
  private var count = 0
  private var capacity: Int
  private var depth = 0
  private var needsCompaction = false

  init(keyPath: KeyPath<Root, Value>) {
    self.keyPath = keyPath
    self.isEqual = _equality(of: Value.self)
    capacity = 2
    entries = .allocate(capacity: capacity)
  }

  deinit {
    for index in 0..<count { entries[index].release() }
    entries.deallocate()
  }

  /// Whether any entry is live (used by `.initial`-free fast checks and tests).
  var hasLiveEntries: Bool {
    for index in 0..<count where entries[index]._withUnsafeGuaranteedRef({ $0.isLive }) {
      return true
    }
    return false
  }

  /// Adds an entry; it hears changes made after this call.
  func append(_ entry: _SlotEntry<Root, Value>) {
    if depth == 0 && needsCompaction { compact() }
    if count == capacity {
      let newCapacity = capacity * 2
      let grown = UnsafeMutablePointer<Unmanaged<_SlotEntry<Root, Value>>>
        .allocate(capacity: newCapacity)
      grown.moveInitialize(from: entries, count: count)
      entries.deallocate()
      entries = grown
      capacity = newCapacity
    }
    (entries + count).initialize(to: .passRetained(entry))
    count += 1
  }

  /// Delivers one change to every live entry, in registration order.
  ///
  /// Entries added by a callback during this walk hear only later changes; entries cancelled
  /// during it are skipped from then on; nothing is unlinked until the outermost walk ends.
  func notify(_ object: Root, old: Value, new: Value) {
    let unchanged = isEqual?(old, new) ?? false
    depth += 1
    let end = count
    var index = 0
    while index < end {
      entries[index]._withUnsafeGuaranteedRef { entry in
        guard entry.isLive else {
          needsCompaction = true
          return
        }
        if unchanged && !entry.everySet { return }
        if !entry.deliver(object, old, new) {
          entry.deactivate()
          needsCompaction = true
        }
      }
      index += 1
    }
    depth -= 1
    if depth == 0 && needsCompaction { compact() }
  }

  /// Unlinks dead entries, keeping the order of the others.
  private func compact() {
    var kept = 0
    for index in 0..<count {
      let entry = entries[index]
      if entry._withUnsafeGuaranteedRef({ $0.isLive }) {
        entries[kept] = entry
        kept += 1
      } else {
        entry.release()
      }
    }
    count = kept
    needsCompaction = false
  }

  /// Deactivates every entry (the object announced its deletion).
  func deactivateAll() {
    for index in 0..<count { entries[index]._withUnsafeGuaranteedRef { $0.deactivate() } }
    needsCompaction = count > 0
  }
}

/// Returns `==` for `Value` when it is `Equatable`, or `nil`.
func _equality<Value>(of type: Value.Type) -> ((Value, Value) -> Bool)? {
  guard let equatable = type as? any Equatable.Type else { return nil }
  func make<E: Equatable>(_: E.Type) -> (Value, Value) -> Bool {
    // `Value` is `E` (the cast above proved it), so reinterpreting a value as `E` is the
    // identity: same type, same size, same layout.
    { lhs, rhs in unsafeBitCast(lhs, to: E.self) == unsafeBitCast(rhs, to: E.self) }
  }
  return make(equatable)
}

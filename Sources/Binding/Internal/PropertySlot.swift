import Synchronization

// A property's observers (`_AnySlot`), the numbers that name slots in `@Observed` storage
// (`_SlotID`), and an object's directory of its slots (`_SlotDirectory`).
//
// One of Binding's few files with unsafe code (`UnretainedReferences.swift` lists them). The
// invariants:
// - **Writer-serialised entry lists**: a slot's entry list is read and written only by writes
//   and registrations of its property, which the model's threading contract serialises like
//   any write of a stored property; other threads only flip an entry's atomic liveness flag.
//   So the list needs no lock and no run-time exclusivity check, and holds its entries as
//   references retained by hand (each retained once when appended, released once when
//   unlinked), so that walking them on every change counts nothing.
// - **Numbers never reused**: a slot's number is unique in the process, so storage copied from
//   another object can never name one of this object's slots by accident.
// - **Published entries stay**: a slot directory's lists only grow, and every list lives as
//   long as the object's state, so a reader without the lock never follows a freed list.
// What it buys: the benchmark's row one target / floor line (every change walks a slot).
// `CopiedWrapperReuseTests` and `SlotDirectoryTests` check them.

/// The part of a slot entry that other threads may touch: its liveness flag.
///
/// Cancelling a registration from any thread only clears this flag; the entry is unlinked from
/// its slot by the next write or registration of that property (which the model's threading
/// contract already serialises), so the entry list itself needs no lock.
@usableFromInline
final class _SlotEntry {
  private let _live = Atomic<Bool>(true)
  /// Runs after the property changed, with the object that owns the property; returns `false`
  /// when the observer is gone for good (its target or root died).
  let fire: (AnyObject) -> Bool

  @usableFromInline
  init(fire: @escaping (AnyObject) -> Bool) {
    self.fire = fire
  }

  @usableFromInline
  var isLive: Bool { _live.load(ordering: .acquiring) }

  /// Marks the entry dead; it receives nothing from now on.
  @usableFromInline
  func deactivate() { _live.store(false, ordering: .releasing) }
}

/// The observers of one `@Observed` property of one object; also the property's identity.
///
/// The wrapper names its slot by number (`_SlotID`); the object's `_ModelState` owns it, so the
/// slot lives as long as the object (registrations may keep it a little longer). Entries are
/// kept in a manually managed buffer of retained pointers so that walking them on every change
/// costs no reference counting.
///
/// - Important: The entry list is read and written only by writes and registrations of this
///   property, which the model's threading contract serialises (like any write of a stored
///   property). Other threads only flip an entry's atomic liveness flag.
@usableFromInline
final class _AnySlot {
  @exclusivity(unchecked) private var entries: UnsafeMutablePointer<Unmanaged<_SlotEntry>>
  @exclusivity(unchecked) private var count = 0
  @exclusivity(unchecked) private var capacity: Int
  @exclusivity(unchecked) private var depth = 0
  @exclusivity(unchecked) private var needsCompaction = false
  /// The entry count at which `append` unlinks dead entries even if no write noticed them
  /// (entries cancelled on a property that is never written), doubling each time: amortised
  /// O(1) per registration, and at most half the entries dead.
  @exclusivity(unchecked) private var compactionThreshold = 8
  /// The identity of the object that owns the property (not a reference: a weak one would slow
  /// down every retain of the model).
  @usableFromInline
  let ownerID: ObjectIdentifier
  private var _name: String?

  /// What `@Observed` storage holds to name this slot: a number no other slot of any object
  /// had or will have (see `_SlotID`).
  @usableFromInline
  let id: _SlotNumber

  init(owner: AnyObject) {
    self.ownerID = ObjectIdentifier(owner)
    capacity = 2
    entries = .allocate(capacity: capacity)
    id = _SlotID.next()
  }

  deinit {
    for index in 0..<count { entries[index].release() }
    entries.deallocate()
  }

  /// Adds an entry; it hears changes made after this call.
  @usableFromInline
  func append(_ entry: _SlotEntry) {
    if depth == 0 && (needsCompaction || count >= compactionThreshold) {
      compact()
      compactionThreshold = max(8, count * 2)
    }
    if count == capacity {
      let newCapacity = capacity * 2
      let grown = UnsafeMutablePointer<Unmanaged<_SlotEntry>>.allocate(capacity: newCapacity)
      grown.moveInitialize(from: entries, count: count)
      entries.deallocate()
      entries = grown
      capacity = newCapacity
    }
    (entries + count).initialize(to: .passRetained(entry))
    count += 1
  }

  /// Tells every live entry that the property changed, in registration order.
  ///
  /// Entries added by a callback during this walk hear only later changes; entries cancelled
  /// during it are skipped from then on; nothing is unlinked until the outermost walk ends.
  ///
  /// - Parameter owner: The object that owns the property.
  func notify(_ owner: AnyObject) {
    depth += 1
    let end = count
    var index = 0
    while index < end {
      entries[index]._withUnsafeGuaranteedRef { entry in
        guard entry.isLive else {
          needsCompaction = true
          return
        }
        if !entry.fire(owner) {
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

  /// The property's name (`name` for `@Observed var name`), found by reflecting `owner` (the
  /// object that owns the property) on first use.
  func name(in owner: AnyObject) -> String {
    if let _name { return _name }
    var mirror: Mirror? = Mirror(reflecting: owner)
    while let current = mirror {
      for child in current.children {
        if let storage = child.value as? any _ObservedStorage, storage._slotID == id,
          let label = child.label
        {
          let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
          _name = name
          return name
        }
      }
      mirror = current.superclassMirror
    }
    return "?"
  }

  /// Whether the slot's property belongs to `object`.
  @usableFromInline
  func isOwned(by object: AnyObject) -> Bool { ownerID == ObjectIdentifier(object) }
}

/// The numbers that name slots in `@Observed` storage.
///
/// Storage names its slot by number, not by address: storage copied from another object
/// (`_name = other._name`) names that object's slot, which may be freed by now and its memory
/// reused for a slot of this object. A number is never reused, so the object's state (which
/// maps its own slots' numbers to the slots, see `_ModelState.slot(named:)`) can never
/// mistake it for one of its own, whatever the platform's pointers look like (tagged top
/// bytes, address spaces wider than 48 bits). 0 means "no slot"; a 64-bit count does not wrap.
enum _SlotID {
  private static let counter = Atomic<UInt64>(0)

  /// A number no slot had before.
  static func next() -> _SlotNumber { counter.wrappingAdd(1, ordering: .relaxed).newValue }
}

/// The number that names a slot (see `_SlotID`): 64 bits on every platform, so that it does
/// not wrap where `UInt` has 32.
@usableFromInline
typealias _SlotNumber = UInt64

/// Lets reflection find which stored property holds a slot.
protocol _ObservedStorage {
  /// The number of the slot the storage names (0 for none).
  var _slotID: _SlotNumber { get }
}

/// Returns `==` for `Value` when it is `Equatable`, or `nil`.
@usableFromInline
func _equality<Value>(of type: Value.Type) -> ((Value, Value) -> Bool)? {
  guard let equatable = type as? any Equatable.Type else { return nil }
  func make<E: Equatable>(_: E.Type) -> (Value, Value) -> Bool {
    // `Value` is `E` (the cast above proved it), so reinterpreting a value as `E` is the
    // identity: same type, same size, same layout.
    { lhs, rhs in unsafeBitCast(lhs, to: E.self) == unsafeBitCast(rhs, to: E.self) }
  }
  return make(equatable)
}

/// The numbers of an object's slots, with the slots, for `_ModelState.slot(named:)`: appended
/// under the state's lock, read without it.
///
/// The entries live in `_SlotList`s: a full list is replaced by a bigger copy that keeps the
/// old one alive (a reader may still scan it), so the lists of one object take at most twice
/// the newest one's memory, and every list lives as long as the object's state. An entry is
/// written, then the list that holds it is published, then the count, each with release order
/// after the one before, so a reader that loads the count, then the list, finds every entry
/// below the count written. The slots are unretained: the state's `slots` owns them.
struct _SlotDirectory: ~Copyable {
  /// The address of the newest list (owned by the state's `slotList`), or 0.
  private let _list = Atomic<UInt>(0)
  private let _count = Atomic<Int>(0)

  /// Lists `slot`; under the state's lock, with `newest`, the state's reference to the newest
  /// list.
  func add(_ slot: _AnySlot, newest: inout _SlotList?) {
    let count = _count.load(ordering: .relaxed)  // written only under the lock
    let entry = _SlotList.Entry(id: slot.id, slot: _Unretained(slot))
    if let list = newest, count < list.capacity {
      (list.entries + count).initialize(to: entry)
    } else {
      let grown = _SlotList(capacity: max(4, count * 2), copying: newest, count: count)
      (grown.entries + count).initialize(to: entry)
      newest = grown
      _list.store(_Unretained(grown).address, ordering: .releasing)
    }
    _count.store(count + 1, ordering: .releasing)
  }

  /// The slot numbered `id`, or `nil`. Any thread, no lock; O(number of slots).
  func slot(named id: _SlotNumber) -> _Unretained<_AnySlot>? {
    let count = _count.load(ordering: .acquiring)
    let address = _list.load(ordering: .acquiring)
    guard count > 0, address != 0 else { return nil }
    // The list loaded after the count holds at least `count` entries, and lives as long as
    // the state.
    let entries = _Unretained<_SlotList>(address: address).with { $0.entries }
    for index in 0..<count where entries[index].id == id {
      return entries[index].slot
    }
    return nil
  }
}

/// A list of `_SlotDirectory`'s entries (see there).
final class _SlotList {
  struct Entry {
    var id: _SlotNumber
    var slot: _Unretained<_AnySlot>
  }

  let entries: UnsafeMutablePointer<Entry>
  let capacity: Int
  private let previous: _SlotList?

  init(capacity: Int, copying previous: _SlotList?, count: Int) {
    self.capacity = capacity
    self.previous = previous
    entries = .allocate(capacity: capacity)
    if let previous { entries.initialize(from: previous.entries, count: count) }
  }

  deinit { entries.deallocate() }
}

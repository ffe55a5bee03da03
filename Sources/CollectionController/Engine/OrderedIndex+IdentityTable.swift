import Binding
import Foundation

// The identity table of `_OrderedIndex` (see `_IdentityTable`): the key of a bucket is the
// identity kept in the record of its slot, so lookups load no element (no generic copy, no
// retain).
extension _OrderedIndex {
  /// The slot of the element with identity `id`, or `-1` when it is not in the index (or is
  /// detached: see `detach(contentsOf:)`).
  @inlinable
  func _find(_ id: ObjectIdentifier) -> Int32 {
    let slot = _findSlot(id)
    // The record was just read to compare its identity: no further miss.
    return slot >= 0 && _slots[Int(slot)].leaf >= 0 ? slot : -1
  }

  /// The slot of the element with identity `id`, or `-1` (see `_find(_:)`), given a slot the
  /// caller found for it earlier: checked (the record holds its element's identity, and a
  /// free slot holds 0), then the table is asked only if it is not that slot.
  ///
  /// A transaction looks an element up once, in `slot(of:)`, and hands the slot to what places
  /// it (`position(of:hint:)`, `detach(contentsOf:)`, `insert(_:sequence:at:hint:)`): each
  /// lookup of the table is a hash, a probe and a comparison, four times a move.
  @inline(__always)
  @inlinable
  func _find(_ id: ObjectIdentifier, hint: Int32) -> Int32 {
    let slot = _findSlot(id, hint: hint)
    return slot >= 0 && _slots[Int(slot)].leaf >= 0 ? slot : -1
  }

  /// The slot of the element with identity `id`, detached or not, or `-1`, given a slot the
  /// caller found for it earlier (see `_find(_:hint:)`).
  @inline(__always)
  @inlinable
  func _findSlot(_ id: ObjectIdentifier, hint: Int32) -> Int32 {
    if hint >= 0 && Int(hint) < _slots.count
      && _slots[Int(hint)].identity == UInt(bitPattern: id)
    {
      return hint
    }
    return _findSlot(id)
  }

  /// The slot of the element with identity `id`, detached or not, or `-1`.
  @inlinable
  func _findSlot(_ id: ObjectIdentifier) -> Int32 {
    // The slots, not `self`: a closure over `self` copies the whole (generic) index.
    let slots = _slots
    return _table.find(UInt(bitPattern: id)) { slots[Int($0)].identity }
  }

  /// Asks for the table's bucket where a lookup of `id` starts, without waiting for it: the
  /// first step of `prefetchRecord(of:)`, issued earlier.
  @inlinable
  func prefetchBucket(of id: ObjectIdentifier) {
    _table.prefetch(UInt(bitPattern: id))
  }

  /// Asks for the record of the slot that holds `id` (read by every lookup of it) without
  /// waiting for it: reads the table's buckets (asked for by `prefetchBucket(of:)` earlier), not
  /// the records. In a large index each is a cache miss that a move would otherwise wait for.
  @inlinable
  func prefetchRecord(of id: ObjectIdentifier) {
    let slots = _slots
    // The table maps slots of `_slots` only; a prefetch never faults anyway. Both ends of the
    // record: a 24-byte record can straddle two lines.
    _table.forEachCandidate(UInt(bitPattern: id)) { slots._prefetchElement(at: Int($0)) }
  }

  /// Asks for what placing the element `id` again reads first, without waiting for it: the
  /// entries and the parent link of its leaf (for its old position) and its kept keys (written
  /// when it is placed). Reads the element's record (see `prefetchRecord(of:)`, which asked for
  /// it earlier).
  ///
  /// Only for the index's writer (the kept keys are written without the lock by a bulk load).
  @inlinable
  func prefetchPlace(of id: ObjectIdentifier) {
    let slot = _find(id)
    guard slot >= 0 else { return }
    keys?.prefetch(slot)
    let leaf = Int(_slots[Int(slot)].leaf)
    Self._prefetch(_leafEntries, leaf * leafCapacity, count: leafCapacity)
    // Its parent (read now: a miss that finding the position would wait for anyway), and the
    // parent's children and counts, which it reads next.
    let node = Int(_leafParents[leaf])
    guard node >= 0 else { return }
    Self._prefetch(_children, node * fanout, count: fanout)
    Self._prefetch(_childCounts, node * fanout, count: fanout)
    Self._prefetch(_nodeParents, node)
  }

  /// Asks for the element at `offset` of `array` (and the `count - 1` after it) to be brought
  /// into the cache, without waiting for it.
  @inline(__always)
  @inlinable
  static func _prefetch(_ array: ContiguousArray<Int32>, _ offset: Int, count: Int = 1) {
    array._prefetchElements(from: offset, count: count)
  }

  @inlinable
  mutating func _tableInsert(_ slot: Int32) {
    let slots = _slots
    // Detached elements keep their entries (and are not in `count`).
    _table.insert(slot, count: count + _detachedCount + 1) { slots[Int($0)].identity }
  }

  /// Removes `slot`, whose element has identity `id`, from the table.
  @inlinable
  mutating func _tableRemove(_ slot: Int32, id: ObjectIdentifier) {
    let slots = _slots
    _table.remove(slot, bits: UInt(bitPattern: id)) { slots[Int($0)].identity }
  }

  /// Makes room in the table for `minimumCapacity` elements.
  @inlinable
  mutating func _reserveTable(_ minimumCapacity: Int) {
    let slots = _slots
    _table.reserveCapacity(minimumCapacity) { slots[Int($0)].identity }
  }
}

import Foundation
public import _BindingThreadLocal

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
    _slots.withUnsafeBufferPointer { slots in
      _table.forEachCandidate(UInt(bitPattern: id)) { slot in
        // Safe: the table maps slots of `_slots` only, and a prefetch never faults anyway.
        if let base = slots.baseAddress { _binding_prefetch(base + Int(slot)) }
      }
    }
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
    let capacity = leafCapacity
    _leafEntries.withUnsafeBufferPointer { entries in
      guard let base = entries.baseAddress else { return }
      // Safe: the leaf's entries are in the buffer, and a prefetch never faults anyway. One
      // prefetch per 64-byte line (16 entries).
      for offset in stride(from: 0, to: capacity, by: 16) {
        _binding_prefetch(base + leaf * capacity + offset)
      }
    }
    // Its parent (read now: a miss that finding the position would wait for anyway), and the
    // parent's children and counts (two lines each at 32 children), which it reads next.
    let node = Int(_leafParents[leaf])
    guard node >= 0 else { return }
    let fanout = fanout
    for line in stride(from: 0, to: fanout, by: 16) {
      Self._prefetch(_children, node * fanout + line)
      Self._prefetch(_childCounts, node * fanout + line)
    }
    Self._prefetch(_nodeParents, node)
  }

  /// Asks for the element at `offset` of `array` to be brought into the cache, without waiting
  /// for it.
  @inline(__always)
  @inlinable
  static func _prefetch(_ array: ContiguousArray<Int32>, _ offset: Int) {
    array.withUnsafeBufferPointer { array in
      // Safe: a prefetch never faults, whatever the address.
      if let base = array.baseAddress { _binding_prefetch(base + offset) }
    }
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

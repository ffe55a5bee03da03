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

  /// The slot of the element with identity `id`, detached or not, or `-1`.
  @inlinable
  func _findSlot(_ id: ObjectIdentifier) -> Int32 {
    // The slots, not `self`: a closure over `self` copies the whole (generic) index.
    let slots = _slots
    return _table.find(UInt(bitPattern: id)) { slots[Int($0)].identity }
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

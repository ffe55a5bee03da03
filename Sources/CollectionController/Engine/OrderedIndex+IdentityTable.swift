import Foundation

// The identity table of `_OrderedIndex` (see `_IdentityTable`): the key of a bucket is the
// identity kept in the node of its slot, so lookups load no element (no generic copy, no
// retain).
extension _OrderedIndex {
  /// The slot of the element with identity `id`, or `-1`.
  @inlinable
  func _find(_ id: ObjectIdentifier) -> Int32 {
    // The nodes, not `self`: a closure over `self` copies the whole (generic) index.
    let nodes = _nodes
    return _table.find(UInt(bitPattern: id)) { nodes[Int($0)].identity }
  }

  @inlinable
  mutating func _tableInsert(_ slot: Int32) {
    let nodes = _nodes
    _table.insert(slot, count: count + 1) { nodes[Int($0)].identity }
  }

  /// Removes `slot`, whose element has identity `id`, from the table.
  @inlinable
  mutating func _tableRemove(_ slot: Int32, id: ObjectIdentifier) {
    let nodes = _nodes
    _table.remove(slot, bits: UInt(bitPattern: id)) { nodes[Int($0)].identity }
  }

  /// Makes room in the table for `minimumCapacity` elements.
  @inlinable
  mutating func _reserveTable(_ minimumCapacity: Int) {
    let nodes = _nodes
    _table.reserveCapacity(minimumCapacity) { nodes[Int($0)].identity }
  }
}

import Binding
import Foundation

// Removing from `_OrderedIndex` by identity, without comparisons: one element, a batch, or a
// batch detached to be inserted again (a transaction's moves).

extension _OrderedIndex {
  /// Removes the element with identity `id`, without comparing elements.
  ///
  /// - Returns: The key of the element's section and its position before removal, or `nil` if
  ///   the element was not in the index. The position's section index is the old one, even when
  ///   the removal deletes the section.
  /// - Complexity: O(log n), plus O(s) when the section disappears.
  @discardableResult
  @inlinable
  mutating func remove(_ id: ObjectIdentifier) -> (sectionKey: SectionKey, position: RowPosition)? {
    let slot = _find(id)
    guard slot >= 0 else { return nil }
    let position = _position(ofSlot: slot)
    let key = _sections[position.section].key
    _remove(slot, id: id, keepingEmptySection: false)
    return (key, position)
  }

  /// Takes the elements with identities `ids` (those in the index) out of their sections, then
  /// at once the sections they left empty, but keeps each one's slot, with its identity and
  /// element, for `insert(_:sequence:at:)` to put it back: a move then frees no slot and
  /// allocates none, and leaves the identity table and the element's reference alone.
  /// `removeDetached()` then removes those not put back.
  ///
  /// The emptied sections go at once, not one by one: each section that goes shifts the later
  /// ones and retags their roots, O(s), which one by one is quadratic when a transaction
  /// empties many sections.
  ///
  /// Until they go back or `removeDetached()` frees them, detached elements are not in the
  /// index for any lookup. A detached slot's record has no leaf (-1), as the last free slot's
  /// does; only the element a detached slot keeps tells them apart.
  ///
  /// - Precondition: No element is detached (every element detached earlier was inserted
  ///   again, or `removeDetached()` ran).
  /// - Complexity: O(k log n) for k identities, plus O(s) once if a section disappears.
  @inlinable
  mutating func detach(contentsOf ids: some Sequence<ObjectIdentifier>) {
    detach(contentsOf: ids.lazy.map { ($0, -1) })
  }

  /// Detaches the elements with identities `ids` (see `detach(contentsOf:)`), each given the
  /// slot `slot(of:)` gave for it (checked, see `position(of:hint:)`), or -1.
  ///
  /// - Complexity: O(k log n) for k identities, plus O(s) once if a section disappears.
  @inlinable
  mutating func detach(contentsOf ids: some Sequence<(id: ObjectIdentifier, hint: Int32)>) {
    precondition(_detachedCount == 0, "elements detached earlier were never removed")
    _forgetDetached()
    var emptied = false
    for (id, hint) in ids {
      let slot = _find(id, hint: hint)
      guard slot >= 0 else { continue }
      if _detach(slot, keepingEmptySection: true) { emptied = true }
      _detached.append(slot)
      _detachedCount += 1
    }
    if emptied { _removeEmptySections() }
  }

  /// Whether some detached element was neither inserted again nor removed.
  @inlinable
  var hasDetached: Bool { _detachedCount > 0 }

  /// Removes the detached elements that were not inserted again.
  ///
  /// - Complexity: O(k) for k detached elements.
  @inlinable
  mutating func removeDetached() {
    if _detachedCount > 0 {
      // Still detached: no leaf, and an element (a slot freed since has none).
      for slot in _detached where _slots[Int(slot)].leaf < 0 {
        guard let element = _elements[Int(slot)] else { continue }
        _tableRemove(slot, id: ObjectIdentifier(element))
        _free(slot)
      }
      _version &+= 1
    }
    _forgetDetached()
  }

  /// Empties the list of detached slots (keeping its storage only while it is small, so that a
  /// transaction over the whole relation does not keep 4 bytes per element for good).
  @inlinable
  mutating func _forgetDetached() {
    _detached.removeAll(keepingCapacity: _detached.capacity <= _keptBufferCapacity)
    _detachedCount = 0
  }

  /// Removes the element in `slot`, whose identity is `id`; a section it leaves empty is
  /// removed too, or kept (for `_removeEmptySections()`) if `keep` is set, so that no section
  /// index shifts. Returns whether it left its section empty and that section is not the
  /// permanent one.
  @inlinable
  @discardableResult
  mutating func _remove(
    _ slot: Int32, id: ObjectIdentifier, keepingEmptySection keep: Bool
  ) -> Bool {
    let emptied = _detach(slot, keepingEmptySection: keep)
    _tableRemove(slot, id: id)
    _free(slot)
    return emptied
  }

  /// Takes the element in `slot` out of its leaf, keeping its slot, identity and element;
  /// returns what `_remove` returns.
  @inlinable
  mutating func _detach(_ slot: Int32, keepingEmptySection keep: Bool) -> Bool {
    let leaf = _slots[Int(slot)].leaf
    let base = Int(leaf) * leafCapacity
    let last = Int(_leafCounts[Int(leaf)]) - 1
    let offset = _offset(of: slot, in: leaf)
    for k in offset..<last { _leafEntries[base + k] = _leafEntries[base + k + 1] }
    _leafCounts[Int(leaf)] = Int32(last)
    // Counts on the way up, and the leaf's new first element while it is a first child.
    var first = offset == 0 && last > 0
    var child = leaf
    var node = _leafParents[Int(leaf)]
    while node >= 0 {
      let at = _place(of: child, in: node)
      _childCounts[at] -= 1
      if first {
        _childFirsts[at] = _leafEntries[base]
        first = at == Int(node) * fanout
      }
      child = node
      node = _nodeParents[Int(node)]
    }
    _slots[Int(slot)].leaf = -1
    count -= 1
    _version &+= 1
    if last == 0 {
      return _unlink(leaf, isLeaf: true, keepingEmptySection: keep)
    }
    if last <= leafCapacity / 4 { _rebalance(leaf, isLeaf: true) }
    return false
  }

  /// Removes every element, keeping the permanent section if there is one.
  ///
  /// - Complexity: O(n).
  @inlinable
  mutating func removeAll() {
    _slots.removeAll()
    _elements.removeAll()
    _freeSlot = -1
    _forgetDetached()
    _removeAllTrees()
    _table.removeAll()
    keys?.removeAll()
    _sections.removeAll()
    if let key = permanentSectionKey {
      _sections.append(_Section(key: key, root: -1, isPermanent: true))
    }
    count = 0
    _version &+= 1
  }
}

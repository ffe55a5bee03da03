import Foundation

// Reading `_OrderedIndex` without changing it: membership by identity, positions, elements
// by position, and walks of a section in order.

extension _OrderedIndex {
  /// Whether the element with identity `id` is in the index.
  ///
  /// - Complexity: Expected O(1).
  @inlinable
  func contains(_ id: ObjectIdentifier) -> Bool {
    _find(id) >= 0
  }

  /// The position of the element with identity `id`, or `nil` if it is not in the index.
  ///
  /// - Complexity: Expected O(log n), without comparisons.
  @inlinable
  func position(of id: ObjectIdentifier) -> RowPosition? {
    let slot = _find(id)
    return slot < 0 ? nil : _position(ofSlot: slot)
  }

  /// The position of the element with identity `id`, or `nil` if it is not in the index, given
  /// the slot `slot(of:)` gave for it (checked: any slot, or -1, gives the right answer).
  ///
  /// - Complexity: O(log n), without comparisons; expected O(1) more if `hint` is not its slot.
  @inlinable
  func position(of id: ObjectIdentifier, hint: Int32) -> RowPosition? {
    let slot = _find(id, hint: hint)
    return slot < 0 ? nil : _position(ofSlot: slot)
  }

  /// The slot of the element with identity `id` (detached or not), or -1: a hint for
  /// `position(of:hint:)`, `detach(contentsOf:)` and `insert(_:sequence:at:hint:)`, which check
  /// it, so it stays safe to pass after the index changed.
  ///
  /// - Complexity: Expected O(1).
  @inlinable
  func slot(of id: ObjectIdentifier) -> Int32 { _findSlot(id) }

  /// The element with identity `id` and its position, found with one lookup of the identity
  /// (where `element(for:)` and `position(of:)` make one each), or `nil`.
  ///
  /// - Complexity: Expected O(log n).
  @inlinable
  func located(_ id: ObjectIdentifier) -> (element: Element, position: RowPosition)? {
    let slot = _find(id)
    guard slot >= 0, let element = _elements[Int(slot)] else { return nil }
    return (element, _position(ofSlot: slot))
  }

  /// The element at `row` of the section at `section`.
  ///
  /// - Complexity: O(log n).
  @inlinable
  func element(atSection section: Int, row: Int) -> Element {
    precondition(
      section >= 0 && section < _sections.count, "section \(section) out of range")
    precondition(row >= 0 && row < count(inSection: section), "row \(row) out of range")
    var node = _sections[section].root
    var rank = Int32(row)
    for _ in 0..<_sections[section].height {
      var at = Int(node) * fanout
      while rank >= _childCounts[at] {
        rank -= _childCounts[at]
        at += 1
      }
      node = _children[at]
    }
    return _element(_leafEntries[Int(node) * leafCapacity + Int(rank)])
  }

  /// The element at `position`.
  ///
  /// - Complexity: O(log n).
  @inlinable
  func element(at position: RowPosition) -> Element {
    element(atSection: position.section, row: position.row)
  }

  /// Calls `body` with each element of the section at `section`, in order.
  ///
  /// - Complexity: O(k), where *k* is the number of elements in the section.
  @inlinable
  func forEach(inSection section: Int, _ body: (Element) throws -> Void) rethrows {
    try _forEachSlot(inSection: section) { try body(_element($0)) }
  }

  /// Calls `body` with each slot of the section at `section`, in order.
  @inlinable
  func _forEachSlot(inSection section: Int, _ body: (Int32) throws -> Void) rethrows {
    let root = _sections[section]
    guard root.root >= 0 else { return }
    // The path from the root to the current leaf: each node with the child being visited.
    var path: [(node: Int32, at: Int)] = []
    var node = root.root
    for _ in 0..<root.height {
      path.append((node, 0))
      node = _children[Int(node) * fanout]
    }
    while true {
      let base = Int(node) * leafCapacity
      for k in 0..<Int(_leafCounts[Int(node)]) { try body(_leafEntries[base + k]) }
      // Up to the nearest node with a next child, then down its first children.
      while let last = path.last, last.at + 1 >= Int(_nodeCounts[Int(last.node)]) {
        path.removeLast()
      }
      guard !path.isEmpty else { return }
      path[path.count - 1].at += 1
      node = _children[Int(path[path.count - 1].node) * fanout + path[path.count - 1].at]
      while path.count < Int(root.height) {
        path.append((node, 0))
        node = _children[Int(node) * fanout]
      }
    }
  }

  /// The elements of the section at `section`, in order.
  ///
  /// - Complexity: O(k), where *k* is the number of elements in the section.
  @inlinable
  func elements(inSection section: Int) -> [Element] {
    var result: [Element] = []
    result.reserveCapacity(count(inSection: section))
    forEach(inSection: section) { result.append($0) }
    return result
  }

  /// The content as arrays of elements, one per section.
  ///
  /// - Complexity: O(n + s).
  @inlinable
  var sections: [[Element]] {
    (0..<_sections.count).map { elements(inSection: $0) }
  }

  /// The content as section keys with element identities, the shape a diffable data source takes.
  ///
  /// - Complexity: O(n + s).
  @inlinable
  func snapshot() -> [(sectionKey: SectionKey, identifiers: [ObjectIdentifier])] {
    (0..<_sections.count).map { section in
      var identifiers: [ObjectIdentifier] = []
      identifiers.reserveCapacity(count(inSection: section))
      forEach(inSection: section) { identifiers.append(ObjectIdentifier($0)) }
      return (_sections[section].key, identifiers)
    }
  }
}

import Foundation

// The counted B+tree of `_OrderedIndex` (see its documentation): slot, leaf and node storage
// with their free lists, and navigation (an entry's place, an element's position, a
// subtree's count and first element).

extension _OrderedIndex {
  /// Makes room for `leaves` leaves and `nodes` nodes in all, no more when the arrays
  /// already have it.
  @inlinable
  mutating func _reserveTrees(leaves: Int, nodes: Int) {
    _leafEntries.reserveCapacity(leaves * leafCapacity)
    _leafCounts.reserveCapacity(leaves)
    _leafParents.reserveCapacity(leaves)
    _children.reserveCapacity(nodes * fanout)
    _childCounts.reserveCapacity(nodes * fanout)
    _childFirsts.reserveCapacity(nodes * fanout)
    _nodeCounts.reserveCapacity(nodes)
    _nodeParents.reserveCapacity(nodes)
    _nodeIsBottom.reserveCapacity(nodes)
  }

  /// Forgets every leaf and node.
  @inlinable
  mutating func _removeAllTrees(keepingCapacity: Bool = false) {
    _leafEntries.removeAll(keepingCapacity: keepingCapacity)
    _leafCounts.removeAll(keepingCapacity: keepingCapacity)
    _leafParents.removeAll(keepingCapacity: keepingCapacity)
    _freeLeaf = -1
    _children.removeAll(keepingCapacity: keepingCapacity)
    _childCounts.removeAll(keepingCapacity: keepingCapacity)
    _childFirsts.removeAll(keepingCapacity: keepingCapacity)
    _nodeCounts.removeAll(keepingCapacity: keepingCapacity)
    _nodeParents.removeAll(keepingCapacity: keepingCapacity)
    _nodeIsBottom.removeAll(keepingCapacity: keepingCapacity)
    _freeNode = -1
  }

  @inline(__always)
  @inlinable
  func _element(_ slot: Int32) -> Element {
    // Safe: only occupied slots (which always hold an element) are linked into leaves and the
    // table.
    _elements[Int(slot)]!
  }

  /// The offset of `slot` in `leaf`, which holds it.
  @inlinable
  func _offset(of slot: Int32, in leaf: Int32) -> Int {
    let base = Int(leaf) * leafCapacity
    var k = 0
    while _leafEntries[base + k] != slot { k += 1 }
    return k
  }

  /// The place of `child` in the entries of `node`, its parent.
  @inlinable
  func _place(of child: Int32, in node: Int32) -> Int {
    var at = Int(node) * fanout
    while _children[at] != child { at += 1 }
    return at
  }

  /// The position of the element in `slot`: its offset in its leaf, plus, at each level up,
  /// the counts of the children before the one it is under.
  @inlinable
  func _position(ofSlot slot: Int32) -> RowPosition {
    let leaf = _slots[Int(slot)].leaf
    var row = _offset(of: slot, in: leaf)
    var child = leaf
    var node = _leafParents[Int(leaf)]
    while node >= 0 {
      var at = Int(node) * fanout
      while _children[at] != child {
        row += Int(_childCounts[at])
        at += 1
      }
      child = node
      node = _nodeParents[Int(node)]
    }
    return RowPosition(section: Int(~node), row: row)
  }

  /// The number of elements below `child` of a node (a leaf when `isLeaf`).
  @inlinable
  func _total(of child: Int32, isLeaf: Bool) -> Int32 {
    if isLeaf { return _leafCounts[Int(child)] }
    let base = Int(child) * fanout
    var total: Int32 = 0
    for k in 0..<Int(_nodeCounts[Int(child)]) { total += _childCounts[base + k] }
    return total
  }

  /// The slot of the first element below `child` (a leaf when `isLeaf`).
  @inlinable
  func _first(of child: Int32, isLeaf: Bool) -> Int32 {
    isLeaf ? _leafEntries[Int(child) * leafCapacity] : _childFirsts[Int(child) * fanout]
  }

  /// The parent of `child` (a leaf when `isLeaf`): a node, or `~sectionIndex` for a root.
  @inlinable
  func _parent(of child: Int32, isLeaf: Bool) -> Int32 {
    isLeaf ? _leafParents[Int(child)] : _nodeParents[Int(child)]
  }

  @inlinable
  mutating func _setParent(of child: Int32, isLeaf: Bool, to parent: Int32) {
    if isLeaf { _leafParents[Int(child)] = parent } else { _nodeParents[Int(child)] = parent }
  }

  /// The number of entries of `tree` (a leaf when `isLeaf`).
  @inline(__always)
  @inlinable
  func _fill(_ tree: Int32, isLeaf: Bool) -> Int {
    Int(isLeaf ? _leafCounts[Int(tree)] : _nodeCounts[Int(tree)])
  }

  /// Sets the number of entries of `tree` (a leaf when `isLeaf`).
  @inline(__always)
  @inlinable
  mutating func _setFill(_ tree: Int32, isLeaf: Bool, to fill: Int) {
    if isLeaf { _leafCounts[Int(tree)] = Int32(fill) } else { _nodeCounts[Int(tree)] = Int32(fill) }
  }

  @inlinable
  mutating func _allocate(_ element: Element, sequence: UInt64) -> Int32 {
    let record = _IndexSlot(
      identity: UInt(bitPattern: ObjectIdentifier(element)), sequence: sequence, leaf: -1)
    if _freeSlot >= 0 {
      let slot = _freeSlot
      _freeSlot = _slots[Int(slot)].leaf
      _slots[Int(slot)] = record
      _elements[Int(slot)] = element
      return slot
    }
    _slots.append(record)
    _elements.append(element)
    return Int32(_slots.count - 1)
  }

  @inlinable
  mutating func _free(_ slot: Int32) {
    _slots[Int(slot)] = _IndexSlot(identity: 0, sequence: 0, leaf: _freeSlot)
    _elements[Int(slot)] = nil
    _freeSlot = slot
  }

  /// A leaf with no entries and no parent yet.
  @inlinable
  mutating func _newLeaf() -> Int32 {
    if _freeLeaf >= 0 {
      let leaf = _freeLeaf
      _freeLeaf = _leafParents[Int(leaf)]
      _leafCounts[Int(leaf)] = 0
      return leaf
    }
    _leafEntries.append(contentsOf: repeatElement(-1, count: leafCapacity))
    _leafCounts.append(0)
    _leafParents.append(-1)
    return Int32(_leafCounts.count - 1)
  }

  @inlinable
  mutating func _freeLeaf(_ leaf: Int32) {
    _leafCounts[Int(leaf)] = -1
    _leafParents[Int(leaf)] = _freeLeaf
    _freeLeaf = leaf
  }

  /// A node with no children and no parent yet.
  @inlinable
  mutating func _newNode(isBottom: Bool) -> Int32 {
    if _freeNode >= 0 {
      let node = _freeNode
      _freeNode = _nodeParents[Int(node)]
      _nodeCounts[Int(node)] = 0
      _nodeIsBottom[Int(node)] = isBottom
      return node
    }
    _children.append(contentsOf: repeatElement(-1, count: fanout))
    _childCounts.append(contentsOf: repeatElement(0, count: fanout))
    _childFirsts.append(contentsOf: repeatElement(-1, count: fanout))
    _nodeCounts.append(0)
    _nodeParents.append(-1)
    _nodeIsBottom.append(isBottom)
    return Int32(_nodeCounts.count - 1)
  }

  @inlinable
  mutating func _freeNode(_ node: Int32) {
    _nodeCounts[Int(node)] = -1
    _nodeParents[Int(node)] = _freeNode
    _freeNode = node
  }
}

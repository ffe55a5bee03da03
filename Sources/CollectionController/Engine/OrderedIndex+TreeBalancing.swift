import Foundation

// Keeping the counted B+tree of `_OrderedIndex` balanced: full leaves and nodes split, empty
// ones are unlinked, a quarter-full one merges with or borrows from a neighbour, and a root
// with one child hands its section to it.

extension _OrderedIndex {
  /// Makes a node above the root `child` of its section, with `child` as its only child.
  @inlinable
  mutating func _growRoot(over child: Int32, isLeaf: Bool) -> Int32 {
    let section = Int(~_parent(of: child, isLeaf: isLeaf))
    let node = _newNode(isBottom: isLeaf)
    let base = Int(node) * fanout
    _children[base] = child
    _childCounts[base] = _total(of: child, isLeaf: isLeaf)
    _childFirsts[base] = _first(of: child, isLeaf: isLeaf)
    _nodeCounts[Int(node)] = 1
    _nodeParents[Int(node)] = ~Int32(section)
    _setParent(of: child, isLeaf: isLeaf, to: node)
    _sections[section].root = node
    _sections[section].height += 1
    return node
  }

  /// Splits the full `leaf`, its upper half going to a new leaf after it.
  @inlinable
  mutating func _splitLeaf(_ leaf: Int32) {
    var parent = _leafParents[Int(leaf)]
    if parent < 0 { parent = _growRoot(over: leaf, isLeaf: true) }
    let half = leafCapacity / 2
    let moved = leafCapacity - half
    let sibling = _newLeaf()
    _copyEntries(of: leaf, half..<leafCapacity, to: sibling, at: 0, isLeaf: true)
    _leafCounts[Int(leaf)] = Int32(half)
    _leafCounts[Int(sibling)] = Int32(moved)
    _leafParents[Int(sibling)] = parent
    _addChild(
      sibling, count: Int32(moved), first: _first(of: sibling, isLeaf: true), after: leaf,
      in: parent)
  }

  /// Splits the full `node`, its upper half going to a new node after it.
  @inlinable
  mutating func _splitNode(_ node: Int32) {
    var parent = _nodeParents[Int(node)]
    if parent < 0 { parent = _growRoot(over: node, isLeaf: false) }
    let half = fanout / 2
    let moved = fanout - half
    let isBottom = _nodeIsBottom[Int(node)]
    let sibling = _newNode(isBottom: isBottom)
    _copyEntries(of: node, half..<fanout, to: sibling, at: 0, isLeaf: false)
    _nodeCounts[Int(node)] = Int32(half)
    _nodeCounts[Int(sibling)] = Int32(moved)
    _nodeParents[Int(sibling)] = parent
    _addChild(
      sibling, count: _total(of: sibling, isLeaf: false), first: _first(of: sibling, isLeaf: false),
      after: node, in: parent)
  }

  /// Adds `child`, which took `count` elements (with its first element, `first`) from
  /// `previous`, right after `previous` in `node`; splits `node` if that fills it.
  @inlinable
  mutating func _addChild(
    _ child: Int32, count: Int32, first: Int32, after previous: Int32, in node: Int32
  ) {
    let at = _place(of: previous, in: node) + 1
    _childCounts[at - 1] -= count
    let end = Int(node) * fanout + Int(_nodeCounts[Int(node)])
    var k = end
    while k > at {
      _children[k] = _children[k - 1]
      _childCounts[k] = _childCounts[k - 1]
      _childFirsts[k] = _childFirsts[k - 1]
      k -= 1
    }
    _children[at] = child
    _childCounts[at] = count
    _childFirsts[at] = first
    _nodeCounts[Int(node)] += 1
    if Int(_nodeCounts[Int(node)]) == fanout { _splitNode(node) }
  }

  /// Unlinks the empty `child` (a leaf when `isLeaf`) from its parent, and a parent it leaves
  /// empty from its own; a root left with one child hands its section to that child. Returns
  /// whether the section is left empty and is not the permanent one (then it is removed unless
  /// `keep` is set).
  @inlinable
  mutating func _unlink(_ child: Int32, isLeaf: Bool, keepingEmptySection keep: Bool) -> Bool {
    let node = _parent(of: child, isLeaf: isLeaf)
    if isLeaf { _freeLeaf(child) } else { _freeNode(child) }
    guard node >= 0 else {
      let section = Int(~node)
      _sections[section].root = -1
      _sections[section].height = 0
      if _sections[section].isPermanent { return false }
      if !keep {
        _sections.remove(at: section)
        _retagRoots(from: section)
      }
      return true
    }
    let at = _place(of: child, in: node)
    let base = Int(node) * fanout
    let end = base + Int(_nodeCounts[Int(node)]) - 1
    for k in at..<end {
      _children[k] = _children[k + 1]
      _childCounts[k] = _childCounts[k + 1]
      _childFirsts[k] = _childFirsts[k + 1]
    }
    _nodeCounts[Int(node)] -= 1
    if end == base { return _unlink(node, isLeaf: false, keepingEmptySection: keep) }
    if at == base { _firstChanged(of: node) }
    if _nodeParents[Int(node)] < 0 {
      _collapseRoot(above: node)
    } else if Int(_nodeCounts[Int(node)]) <= fanout / 4 {
      _rebalance(node, isLeaf: false)
    }
    return false
  }

  /// Copies the new first element of `node` (its first child's) into the ancestors it is first
  /// under.
  @inlinable
  mutating func _firstChanged(of node: Int32) {
    let first = _childFirsts[Int(node) * fanout]
    var child = node
    var parent = _nodeParents[Int(node)]
    while parent >= 0 {
      let at = _place(of: child, in: parent)
      _childFirsts[at] = first
      if at != Int(parent) * fanout { return }
      child = parent
      parent = _nodeParents[Int(parent)]
    }
  }

  /// If `node` is a root with one child, makes the child the root (repeatedly).
  @inlinable
  mutating func _collapseRoot(above node: Int32) {
    var node = node
    while _nodeParents[Int(node)] < 0 && _nodeCounts[Int(node)] == 1 {
      let section = Int(~_nodeParents[Int(node)])
      let isLeaf = _nodeIsBottom[Int(node)]
      let child = _children[Int(node) * fanout]
      _setParent(of: child, isLeaf: isLeaf, to: ~Int32(section))
      _sections[section].root = child
      _sections[section].height -= 1
      _freeNode(node)
      if isLeaf { return }
      node = child
    }
  }

  /// Rebalances `child` (a leaf when `isLeaf`), which fell to a quarter full or less, with a
  /// neighbour under the same parent: when the two fit in three quarters of one, the later
  /// one's entries move to the earlier one and the later one is unlinked; otherwise entries move
  /// from the neighbour until the two hold about as many. So a node other than a root always
  /// has two children or more, and the height stays within log2 of the number of leaves.
  @inlinable
  mutating func _rebalance(_ child: Int32, isLeaf: Bool) {
    let node = _parent(of: child, isLeaf: isLeaf)
    guard node >= 0 else { return }
    let at = _place(of: child, in: node)
    let base = Int(node) * fanout
    let end = base + Int(_nodeCounts[Int(node)])
    let limit = (isLeaf ? leafCapacity : fanout) * 3 / 4
    let fill = _fill(child, isLeaf: isLeaf)
    let (left, right): (Int, Int)
    if at + 1 < end && fill + _fill(_children[at + 1], isLeaf: isLeaf) <= limit {
      (left, right) = (at, at + 1)
    } else if at > base && _fill(_children[at - 1], isLeaf: isLeaf) + fill <= limit {
      (left, right) = (at - 1, at)
    } else {
      if at + 1 < end {
        _borrow(into: child, at: at, from: at + 1, isLeaf: isLeaf)
      } else if at > base {
        _borrow(into: child, at: at, from: at - 1, isLeaf: isLeaf)
      }
      return
    }
    let (into, from) = (_children[left], _children[right])
    let start = _fill(into, isLeaf: isLeaf)
    let moved = _fill(from, isLeaf: isLeaf)
    _copyEntries(of: from, 0..<moved, to: into, at: start, isLeaf: isLeaf)
    _setFill(into, isLeaf: isLeaf, to: start + moved)
    _childCounts[left] += _childCounts[right]
    _childCounts[right] = 0
    // The emptied later one goes; its parent keeps at least the earlier one.
    _ = _unlink(from, isLeaf: isLeaf, keepingEmptySection: true)
  }

  /// Moves entries from the neighbour at `source` (a child entry of the same node, right
  /// before or after `child`'s at `at`) to `child`, until the two hold about as many.
  @inlinable
  mutating func _borrow(into child: Int32, at: Int, from source: Int, isLeaf: Bool) {
    let neighbour = _children[source]
    let (have, spare) = (_fill(child, isLeaf: isLeaf), _fill(neighbour, isLeaf: isLeaf))
    let moved = (spare - have) / 2
    guard moved > 0 else { return }
    // The entries that move: the neighbour's first ones when it comes after, its last ones
    // when it comes before.
    let taken = source > at ? 0..<moved : spare - moved..<spare
    var elements = Int32(moved)
    if !isLeaf {
      elements = 0
      for k in taken { elements += _childCounts[Int(neighbour) * fanout + k] }
    }
    if source > at {
      _copyEntries(of: neighbour, taken, to: child, at: have, isLeaf: isLeaf)
      _copyEntries(of: neighbour, moved..<spare, to: neighbour, at: 0, isLeaf: isLeaf)
    } else {
      _copyEntries(of: child, 0..<have, to: child, at: moved, isLeaf: isLeaf)
      _copyEntries(of: neighbour, taken, to: child, at: 0, isLeaf: isLeaf)
    }
    _setFill(child, isLeaf: isLeaf, to: have + moved)
    _setFill(neighbour, isLeaf: isLeaf, to: spare - moved)
    _childCounts[at] += elements
    _childCounts[source] -= elements
    // The later one's first element changed; it is not its parent's first child.
    let later = max(at, source)
    _childFirsts[later] = _first(of: _children[later], isLeaf: isLeaf)
  }

  /// Copies the entries `range` of `source` to `target` from `offset` on: slots (and their
  /// leaf) for leaves when `isLeaf`, else children with their counts, first elements and
  /// parent. `source` and `target` may be the same (a shift either way).
  @inlinable
  mutating func _copyEntries(
    of source: Int32, _ range: Range<Int>, to target: Int32, at offset: Int, isLeaf: Bool
  ) {
    let shift = offset - range.lowerBound
    // Backwards when the entries move up within one leaf or node.
    if source == target && shift > 0 {
      for index in range.reversed() {
        _copyEntry(of: source, index, to: target, index + shift, isLeaf: isLeaf)
      }
    } else {
      for index in range {
        _copyEntry(of: source, index, to: target, index + shift, isLeaf: isLeaf)
      }
    }
  }

  /// Copies entry `index` of `source` to entry `destination` of `target` (see `_copyEntries`).
  @inline(__always)
  @inlinable
  mutating func _copyEntry(
    of source: Int32, _ index: Int, to target: Int32, _ destination: Int, isLeaf: Bool
  ) {
    if isLeaf {
      let slot = _leafEntries[Int(source) * leafCapacity + index]
      _leafEntries[Int(target) * leafCapacity + destination] = slot
      _slots[Int(slot)].leaf = target
    } else {
      let (from, to) = (Int(source) * fanout + index, Int(target) * fanout + destination)
      _children[to] = _children[from]
      _childCounts[to] = _childCounts[from]
      _childFirsts[to] = _childFirsts[from]
      _setParent(of: _children[to], isLeaf: _nodeIsBottom[Int(target)], to: target)
    }
  }
}

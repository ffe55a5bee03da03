import Foundation

extension _OrderedIndex {
  #if COLLECTION_CONTROLLER_INTERNAL_CHECKS
    /// Traps unless every structural invariant holds: section keys strictly increasing, no empty
    /// section but the permanent one, root tags, parent links, counts and first elements, no
    /// empty or full leaf or node, each slot's leaf, the element order (comparator, then
    /// sequence), positions, the identity table, the free lists, and that no element is detached.
    ///
    /// Compiled only with `-D COLLECTION_CONTROLLER_INTERNAL_CHECKS` (see Package.swift).
    ///
    /// - Complexity: O(n log n + s + b), where *b* is the number of identity-table buckets (each
    ///   element's position and row are read from the top).
    @inlinable
    func _checkInvariants(order checksOrder: Bool = true) {
      precondition(_detachedCount == 0, "\(_detachedCount) elements detached and never removed")
      var total = 0
      var linkedLeaves = 0
      var linkedNodes = 0
      for (index, section) in _sections.enumerated() {
        if index > 0 {
          precondition(_sections[index - 1].key < section.key, "section keys out of order")
        }
        if section.root < 0 {
          precondition(section.key == permanentSectionKey, "empty section \(index) survived")
          precondition(section.height == 0, "an empty section has a height")
          continue
        }
        precondition(
          _parent(of: section.root, isLeaf: section.height == 0) == ~Int32(index), "bad root tag")
        if section.height > 0 {
          precondition(_nodeCounts[Int(section.root)] > 1, "a root node with one child")
        }
        let leavesBefore = linkedLeaves
        let size = _checkTree(
          section.root, height: section.height, leaves: &linkedLeaves, nodes: &linkedNodes)
        // Every node has two children or more: the height is within log2 of the leaves.
        precondition(
          section.height < 30 && 1 << section.height <= linkedLeaves - leavesBefore,
          "section \(index) is \(section.height) high over \(linkedLeaves - leavesBefore) leaves")
        precondition(size == count(inSection: index), "section size mismatch")
        total += size
        var previous: Int32 = -1
        var rows = 0
        _forEachSlot(inSection: index) { slot in
          if let keys {
            if checksOrder {
              // Settled: each element's kept keys are its live keys.
              keys.stage(_element(slot))
              precondition(
                keys.stagedComparison.compare(with: slot) == .orderedSame,
                "kept sort keys differ from the live ones in section \(index) at row \(rows)")
            }
            if previous >= 0 {
              let order = keys.compare(previous, slot)
              precondition(
                order == .orderedAscending
                  || (order == .orderedSame
                    && _slots[Int(previous)].sequence < _slots[Int(slot)].sequence),
                "elements out of kept-key order in section \(index) at row \(rows)")
            }
          } else if checksOrder && previous >= 0 {
            let order = _comparator(_element(previous), _element(slot))
            precondition(
              order == .orderedAscending
                || (order == .orderedSame
                  && _slots[Int(previous)].sequence < _slots[Int(slot)].sequence),
              "elements out of order in section \(index) at row \(rows)")
          }
          precondition(
            _position(ofSlot: slot) == RowPosition(section: index, row: rows), "bad rank")
          precondition(element(atSection: index, row: rows) === _element(slot), "bad row")
          rows += 1
          previous = slot
        }
        precondition(rows == size, "a walk of section \(index) found \(rows) of \(size)")
      }
      if let key = permanentSectionKey {
        precondition(sectionIndex(for: key) != nil, "the permanent section is missing")
      }
      precondition(total == count, "count \(count) but trees hold \(total)")
      var free = 0
      var slot = _freeSlot
      while slot >= 0 {
        precondition(_elements[Int(slot)] == nil, "occupied slot on the free list")
        free += 1
        slot = _slots[Int(slot)].leaf
      }
      precondition(free + count == _slots.count, "leaked slots")
      Self._checkFreeList(
        _freeLeaf, counts: _leafCounts, links: _leafParents, linked: linkedLeaves, of: "leaves")
      Self._checkFreeList(
        _freeNode, counts: _nodeCounts, links: _nodeParents, linked: linkedNodes, of: "nodes")
      var mapped = 0
      _table.forEachSlot { slot in
        mapped += 1
        precondition(
          _find(ObjectIdentifier(_element(slot))) == slot, "identity table cannot find a slot")
      }
      precondition(mapped == count, "identity table holds \(mapped) of \(count) elements")
      precondition(
        _table.buckets.isEmpty || count * 4 <= _table.buckets.count * 3, "table overloaded")
    }

    /// Checks that the free list from `head` (linked through `links`) holds free entries
    /// (count -1) only, and with the `linked` ones all of them.
    @inlinable
    static func _checkFreeList(
      _ head: Int32, counts: ContiguousArray<Int32>, links: ContiguousArray<Int32>, linked: Int,
      of what: String
    ) {
      var free = 0
      var entry = head
      while entry >= 0 {
        precondition(counts[Int(entry)] == -1, "linked \(what) on the free list")
        free += 1
        entry = links[Int(entry)]
      }
      precondition(free + linked == counts.count, "leaked \(what)")
    }

    /// Checks the tree below `tree` (a leaf when `height` is 0): parent links, counts, first
    /// elements, fill and each slot's leaf; counts the leaves and nodes; returns its size.
    @inlinable
    func _checkTree(_ tree: Int32, height: Int32, leaves: inout Int, nodes: inout Int) -> Int {
      if height == 0 {
        leaves += 1
        let size = Int(_leafCounts[Int(tree)])
        precondition(size > 0 && size < leafCapacity, "a leaf holds \(size)")
        for k in 0..<size {
          let slot = _leafEntries[Int(tree) * leafCapacity + k]
          precondition(_elements[Int(slot)] != nil, "a free slot in a leaf")
          precondition(_slots[Int(slot)].leaf == tree, "a slot's leaf is wrong")
        }
        return size
      }
      nodes += 1
      let children = Int(_nodeCounts[Int(tree)])
      // Two or more: a root with one hands its section down, another one rebalances.
      precondition(children > 1 && children < fanout, "a node has \(children) children")
      precondition(_nodeIsBottom[Int(tree)] == (height == 1), "a node's level is wrong")
      var size = 0
      for k in 0..<children {
        let at = Int(tree) * fanout + k
        let child = _children[at]
        precondition(_parent(of: child, isLeaf: height == 1) == tree, "bad parent link")
        let childSize = _checkTree(child, height: height - 1, leaves: &leaves, nodes: &nodes)
        precondition(Int(_childCounts[at]) == childSize, "bad child count")
        precondition(_childFirsts[at] == _first(of: child, isLeaf: height == 1), "bad first")
        size += childSize
      }
      return size
    }
  #else
    /// Does nothing: build with `-D COLLECTION_CONTROLLER_INTERNAL_CHECKS` to check invariants.
    @inline(__always)
    @inlinable
    func _checkInvariants(order checksOrder: Bool = true) {}
  #endif
}

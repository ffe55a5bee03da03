import Foundation

extension _OrderedIndex {
  #if COLLECTION_CONTROLLER_INTERNAL_CHECKS
    /// Traps unless every structural invariant holds: section keys strictly increasing, no empty
    /// section but the permanent one, root tags, parent links, subtree sizes, the heap order of
    /// priorities, the element order (comparator, then sequence), the identity table and the free
    /// list.
    ///
    /// Compiled only with `-D COLLECTION_CONTROLLER_INTERNAL_CHECKS` (see Package.swift).
    ///
    /// - Complexity: O(n + s + b), where *b* is the number of identity-table buckets.
    @inlinable
    func _checkInvariants(order checksOrder: Bool = true) {
      var total = 0
      for (index, section) in _sections.enumerated() {
        if index > 0 {
          precondition(_sections[index - 1].key < section.key, "section keys out of order")
        }
        if section.root < 0 {
          precondition(section.key == permanentSectionKey, "empty section \(index) survived")
          continue
        }
        precondition(_nodes[Int(section.root)].parent == ~Int32(index), "bad root tag")
        total += _checkSubtree(section.root)
        var previous: Int32 = -1
        var rows = 0
        var node = _leftmost(section.root)
        while node >= 0 {
          if let keys {
            if checksOrder {
              // Settled: each element's kept keys are its live keys.
              keys.stage(_element(node))
              precondition(
                keys.stagedComparison.compare(with: node) == .orderedSame,
                "kept sort keys differ from the live ones in section \(index) at row \(rows)")
            }
            if previous >= 0 {
              let order = keys.compare(previous, node)
              precondition(
                order == .orderedAscending
                  || (order == .orderedSame
                    && _nodes[Int(previous)].sequence < _nodes[Int(node)].sequence),
                "elements out of kept-key order in section \(index) at row \(rows)")
            }
          } else if checksOrder && previous >= 0 {
            let a = _element(previous)
            let b = _element(node)
            let order = _comparator(a, b)
            precondition(
              order == .orderedAscending
                || (order == .orderedSame
                  && _nodes[Int(previous)].sequence < _nodes[Int(node)].sequence),
              "elements out of order in section \(index) at row \(rows)")
          }
          precondition(
            _position(ofSlot: node) == RowPosition(section: index, row: rows), "bad rank")
          rows += 1
          previous = node
          node = _successor(node)
        }
        precondition(rows == count(inSection: index), "section size mismatch")
      }
      if let key = permanentSectionKey {
        precondition(sectionIndex(for: key) != nil, "the permanent section is missing")
      }
      precondition(total == count, "count \(count) but trees hold \(total)")
      var free = 0
      var slot = _freeHead
      while slot >= 0 {
        precondition(_elements[Int(slot)] == nil, "occupied slot on the free list")
        free += 1
        slot = _nodes[Int(slot)].left
      }
      precondition(free + count == _nodes.count, "leaked slots")
      var mapped = 0
      for slot in _table.buckets where slot >= 0 {
        mapped += 1
        precondition(
          _find(ObjectIdentifier(_element(slot))) == slot, "identity table cannot find a slot")
      }
      precondition(mapped == count, "identity table holds \(mapped) of \(count) elements")
      precondition(
        _table.buckets.isEmpty || count * 4 <= _table.buckets.count * 3, "table overloaded")
    }

    /// Checks links, sizes and priorities below `root`; returns the subtree size.
    @inlinable
    func _checkSubtree(_ root: Int32) -> Int {
      var size = 1
      for child in [_nodes[Int(root)].left, _nodes[Int(root)].right] where child >= 0 {
        precondition(_nodes[Int(child)].parent == root, "bad parent link")
        precondition(Self._priority(child) < Self._priority(root), "heap order violated")
        size += _checkSubtree(child)
      }
      precondition(Int(_nodes[Int(root)].size) == size, "bad subtree size")
      precondition(_elements[Int(root)] != nil, "free slot linked into a tree")
      return size
    }
  #else
    /// Does nothing: build with `-D COLLECTION_CONTROLLER_INTERNAL_CHECKS` to check invariants.
    @inline(__always)
    @inlinable
    func _checkInvariants(order checksOrder: Bool = true) {}
  #endif
}

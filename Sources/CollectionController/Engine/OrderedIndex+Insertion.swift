import Foundation

// Inserting into `_OrderedIndex`: finding where an element goes by comparisons alone (no
// change to the index, so user code runs with no lock held), then putting it there.

extension _OrderedIndex {
  /// Inserts `element` into the section with `sectionKey`, creating that section if needed.
  ///
  /// The element goes after every element of the section that does not order after it, then by
  /// `sequence`: among elements the comparator finds equal, smaller sequence numbers come first.
  /// Every element in the index must have its current sort keys (remove changed elements first).
  ///
  /// - Precondition: The element is not in the index.
  /// - Complexity: O(log n) comparisons, plus O(s) when the section is new.
  @inlinable
  mutating func insert(_ element: Element, sectionKey: SectionKey, sequence: UInt64) {
    let point = insertionPoint(for: element, sectionKey: sectionKey, sequence: sequence)
    insert(element, sequence: sequence, at: point)
  }

  /// Where an element goes: the section, and the leaf and offset in it.
  ///
  /// Found by comparisons alone, with no change to the index, so that the comparator (user code)
  /// can run while no lock is held: an index whose only writer finds the point and then inserts
  /// at it (with its lock held) needs no lock for the search.
  @usableFromInline
  struct InsertionPoint {
    /// The section's key.
    @usableFromInline
    var sectionKey: SectionKey
    /// The section's index, or `nil` when the section does not exist yet.
    @usableFromInline
    var section: Int?
    /// Where a new section goes (its index after insertion), when `section` is `nil`.
    @usableFromInline
    var newSection: Int
    /// The leaf the element goes into, or -1 when the section is empty or new.
    @usableFromInline
    var leaf: Int32
    /// The element's offset in `leaf`.
    @usableFromInline
    var offset: Int
    /// The index's version when the point was found.
    @usableFromInline
    var version: UInt64

    @inlinable
    init(
      sectionKey: SectionKey, section: Int?, newSection: Int, leaf: Int32, offset: Int,
      version: UInt64
    ) {
      self.sectionKey = sectionKey
      self.section = section
      self.newSection = newSection
      self.leaf = leaf
      self.offset = offset
      self.version = version
    }
  }

  /// Finds where `element` goes, comparing it with the section's elements; changes nothing.
  ///
  /// The point is valid until the index is next changed.
  ///
  /// - Complexity: O(log n) comparisons, plus O(log s) key comparisons.
  @inlinable
  func insertionPoint(
    for element: Element, sectionKey: SectionKey, sequence: UInt64
  ) -> InsertionPoint {
    Self._requireTotallyOrdered(sectionKey, of: element)
    // Kept keys are read here, with the comparisons (user code: no lock is held).
    keys?.stage(element)
    let lowerBound = _sectionLowerBound(sectionKey)
    guard lowerBound < _sections.count && _sections[lowerBound].key == sectionKey else {
      return InsertionPoint(
        sectionKey: sectionKey, section: nil, newSection: lowerBound, leaf: -1, offset: 0,
        version: _version)
    }
    let section = lowerBound
    let root = _sections[section]
    guard root.root >= 0 else {
      return InsertionPoint(
        sectionKey: sectionKey, section: section, newSection: section, leaf: -1, offset: 0,
        version: _version)
    }
    // Locals, not `self`: a closure over `self` copies the whole (generic) index.
    let slots = _slots
    let leaf: Int32
    let offset: Int
    if let comparison = keys?.stagedComparison {
      let addresses = comparison.addresses()
      let sequences = Self._sequenceAddresses(slots)
      // The kept keys' stores, called without retaining them (see `_StagedComparison`).
      (leaf, offset) = _descend(
        root.root, height: root.height,
        prefetch: { slot in
          addresses.prefetch(slot)
          sequences.prefetch(slot)
        }
      ) { Self._orders(comparison.compare(with: $0), sequence, before: $0, slots) }
    } else {
      let comparator = _comparator
      let elements = _elements
      (leaf, offset) = _descend(root.root, height: root.height, prefetch: { _ in }) {
        // Safe: only occupied slots (which always hold an element) are linked into leaves.
        Self._orders(comparator(element, elements[Int($0)]!), sequence, before: $0, slots)
      }
    }
    return InsertionPoint(
      sectionKey: sectionKey, section: section, newSection: section, leaf: leaf, offset: offset,
      version: _version)
  }

  /// Where `slots` keep their sequences, the tie-break of a descent's comparisons (see
  /// `_KeptColumn`), asked for with the kept keys: in a large index the keys often tie at the
  /// end of a descent, where the sequences decide.
  @inlinable
  static func _sequenceAddresses(_ slots: ContiguousArray<_IndexSlot>) -> _KeptColumn {
    _KeptColumn(slots, byteOffset: _IndexSlot.sequenceOffset)
  }

  /// The leaf below `root` where an element goes, and its offset there, given whether it goes
  /// before the element in a slot: a binary search of the children's first elements per node,
  /// then of the leaf.
  ///
  /// Before each comparison, the descent hands `prefetch` the slots of the two comparisons
  /// that may follow it in the same node or leaf (the middles of both halves), for their keys
  /// and sequences: in a large index each comparison waits for a cache miss, and the one after
  /// it, whichever way this one goes, then finds its keys on the way (two comparisons ahead
  /// would ask for four slots to use one). A descent without kept keys prefetches nothing: its
  /// comparisons call the comparators, which cost far more than the two entries read here.
  @inlinable
  @inline(__always)
  func _descend(
    _ root: Int32, height: Int32, prefetch: (Int32) -> Void, goesBefore: (Int32) -> Bool
  ) -> (leaf: Int32, offset: Int) {
    /// Asks for the slots of the middles of `low..<middle` and `middle + 1..<high` in `entries`
    /// from `base`.
    @inline(__always)
    func prefetchNext(
      _ entries: ContiguousArray<Int32>, _ base: Int, _ low: Int, _ middle: Int, _ high: Int
    ) {
      if low < middle { prefetch(entries[base + (low + middle) / 2]) }
      if middle + 1 < high { prefetch(entries[base + (middle + 1 + high) / 2]) }
    }
    var node = root
    for _ in 0..<height {
      let base = Int(node) * fanout
      // The last child whose first element does not come after the element (the first child
      // takes what comes before all of them).
      var (low, high) = (1, Int(_nodeCounts[Int(node)]))
      while low < high {
        let middle = (low + high) / 2
        prefetchNext(_childFirsts, base, low, middle, high)
        if goesBefore(_childFirsts[base + middle]) { high = middle } else { low = middle + 1 }
      }
      // What inserting below this child writes (its count) and reads (this node's parent), asked
      // for now: the descent's comparisons below give them time to arrive.
      Self._prefetch(_childCounts, base + low - 1)
      Self._prefetch(_nodeParents, Int(node))
      node = _children[base + low - 1]
    }
    Self._prefetch(_leafParents, Int(node))
    let base = Int(node) * leafCapacity
    var (low, high) = (0, Int(_leafCounts[Int(node)]))
    while low < high {
      let middle = (low + high) / 2
      prefetchNext(_leafEntries, base, low, middle, high)
      if goesBefore(_leafEntries[base + middle]) { high = middle } else { low = middle + 1 }
    }
    return (node, low)
  }

  /// Inserts `element` at `point`, found by `insertionPoint(for:sectionKey:sequence:)` with no
  /// change to the index since; compares no elements and no section keys.
  ///
  /// A detached element (see `detach(contentsOf:)`) goes back into its own slot.
  ///
  /// - Precondition: The element is not in the index.
  /// - Complexity: O(log n), plus O(s) when the section is new.
  ///
  /// - Parameter hint: The slot `slot(of:)` gave for the element, if the caller has it (checked).
  @inlinable
  mutating func insert(
    _ element: Element, sequence: UInt64, at point: InsertionPoint, hint: Int32 = -1
  ) {
    precondition(point.version == _version, "stale insertion point")
    let detached = _findSlot(ObjectIdentifier(element), hint: hint)
    precondition(
      detached < 0 || _slots[Int(detached)].leaf < 0, "the element is already in the index")
    precondition(count < Int(Int32.max) - 1, "too many elements for 32-bit slot numbers")
    let section: Int
    if let existing = point.section {
      section = existing
    } else {
      section = point.newSection
      _sections.insert(_Section(key: point.sectionKey, root: -1), at: section)
      _retagRoots(from: section + 1)
    }
    let slot: Int32
    if detached >= 0 {
      slot = detached
      _slots[Int(slot)].sequence = sequence
      _detachedCount -= 1
    } else {
      slot = _allocate(element, sequence: sequence)
      _tableInsert(slot)
    }
    keys?.keepStaged(at: slot, for: element)
    if point.leaf < 0 {
      precondition(_sections[section].root < 0, "stale insertion point")
      let leaf = _newLeaf()
      _leafEntries[Int(leaf) * leafCapacity] = slot
      _leafCounts[Int(leaf)] = 1
      _leafParents[Int(leaf)] = ~Int32(section)
      _slots[Int(slot)].leaf = leaf
      _sections[section].root = leaf
      _sections[section].height = 0
    } else {
      _insert(slot, into: point.leaf, at: point.offset)
    }
    count += 1
    _version &+= 1
  }

  /// Puts `slot` at `offset` in `leaf`, counts it in every node above, and splits the leaf if
  /// it is full.
  @inlinable
  mutating func _insert(_ slot: Int32, into leaf: Int32, at offset: Int) {
    let base = Int(leaf) * leafCapacity
    let last = Int(_leafCounts[Int(leaf)])
    var k = last
    while k > offset {
      _leafEntries[base + k] = _leafEntries[base + k - 1]
      k -= 1
    }
    _leafEntries[base + offset] = slot
    _leafCounts[Int(leaf)] = Int32(last + 1)
    _slots[Int(slot)].leaf = leaf
    var first = offset == 0
    var child = leaf
    var node = _leafParents[Int(leaf)]
    while node >= 0 {
      let at = _place(of: child, in: node)
      _childCounts[at] += 1
      if first {
        _childFirsts[at] = slot
        first = at == Int(node) * fanout
      }
      child = node
      node = _nodeParents[Int(node)]
    }
    if last + 1 == leafCapacity { _splitLeaf(leaf) }
  }

  /// Replaces the sequence number of the element with identity `id`, in place.
  ///
  /// The new number must keep the element's order among the elements the comparator finds
  /// equal to it (relabeling an order-maintenance sequence does), so the tree needs no change.
  ///
  /// - Returns: Whether the element is in the index.
  /// - Complexity: Expected O(1).
  @discardableResult
  @inlinable
  mutating func setSequence(_ id: ObjectIdentifier, to sequence: UInt64) -> Bool {
    let slot = _find(id)
    guard slot >= 0 else { return false }
    _slots[Int(slot)].sequence = sequence
    return true
  }

  /// Whether an element whose comparison with the one in `slot` gave `order`, and whose
  /// sequence number is `sequence`, goes before it.
  @inlinable
  @inline(__always)
  static func _orders(
    _ order: ComparisonResult, _ sequence: UInt64, before slot: Int32,
    _ slots: ContiguousArray<_IndexSlot>
  ) -> Bool {
    switch order {
    case .orderedAscending: true
    case .orderedDescending: false
    case .orderedSame: sequence < slots[Int(slot)].sequence
    }
  }
}

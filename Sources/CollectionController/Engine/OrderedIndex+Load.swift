// Building an index in bulk: one sort and a linear load, instead of one insertion (and its
// O(log n) comparisons and its splits) per element.

extension _OrderedIndex {
  /// The elements of a bulk load in their final order, grouped into sections: what
  /// `prepareLoad` computes (comparisons, user code) with no lock held, for `load` to build.
  @usableFromInline
  struct Load {
    @usableFromInline
    var elements: [Element]
    @usableFromInline
    var sequences: [UInt64]
    /// The positions in `elements` in index order.
    @usableFromInline
    var order: [Int32]
    /// The sections in key order: each key with its range in `order`, and whether it is the
    /// permanent section (which may be empty).
    @usableFromInline
    var sections: [(key: SectionKey, range: Range<Int>, isPermanent: Bool)]

    @inlinable
    init(
      elements: [Element], sequences: [UInt64], order: [Int32],
      sections: [(key: SectionKey, range: Range<Int>, isPermanent: Bool)]
    ) {
      self.elements = elements
      self.sequences = sequences
      self.order = order
      self.sections = sections
    }
  }

  /// Orders `elements` for a bulk load into this index, which must be empty and keep its sort
  /// keys: by section key, then by kept keys (read now, into slots `0..<n`), then by sequence.
  /// (Only kept keys: a live comparison that is not a total order, NaN, would give the sort no
  /// consistent answer, while inserting one by one still places each element consistently with
  /// its neighbours.)
  ///
  /// Changes nothing the index's readers see: kept keys are the index writer's own.
  ///
  /// - Complexity: O(n log n) comparisons.
  @inlinable
  func prepareLoad(
    _ elements: [Element], sectionKeys: [SectionKey], sequences: [UInt64]
  ) -> Load {
    precondition(count == 0, "a bulk load needs an empty index")
    guard let keys else { preconditionFailure("a bulk load needs kept sort keys") }
    // Each element's section as a rank among the distinct keys, so that the sort compares
    // integers: a key equal to the previous element's costs one `==`, another one a binary
    // search of the few distinct keys (user code runs O(n log s) times, not O(n log n)).
    var distinct: [(key: SectionKey, id: Int32)] = []
    var discovered = [Int32](repeating: 0, count: elements.count)
    for offset in sectionKeys.indices {
      let key = sectionKeys[offset]
      if offset > 0 && sectionKeys[offset - 1] == key {
        discovered[offset] = discovered[offset - 1]
        continue
      }
      let low = _lowerBound(distinct.count) { distinct[$0].key < key }
      if low < distinct.count && distinct[low].key == key {
        discovered[offset] = distinct[low].id
        continue
      }
      Self._requireTotallyOrdered(key, of: elements[offset])
      discovered[offset] = Int32(distinct.count)
      distinct.insert((key, Int32(distinct.count)), at: low)
    }
    var rankOfID = [Int32](repeating: 0, count: distinct.count)
    for (rank, entry) in distinct.enumerated() { rankOfID[Int(entry.id)] = Int32(rank) }
    let ranks = discovered.map { rankOfID[Int($0)] }
    var order = (0..<Int32(elements.count)).map { $0 }
    // Ties of all keys keep sequence order, so the sorts start from it.
    if !zip(sequences, sequences.dropFirst()).allSatisfy({ $0 < $1 }) {
      order.sort { sequences[Int($0)] < sequences[Int($1)] }
    }
    keys.removeAll()
    for offset in elements.indices { keys.keep(elements[offset], at: Int32(offset)) }
    keys.sortStably(&order)
    // Sections last (most significant): a stable counting sort by rank.
    order = _stableCountingSort(order, buckets: distinct.count) { Int(ranks[Int($0)]) }
    var sections: [(key: SectionKey, range: Range<Int>, isPermanent: Bool)] = []
    var start = 0
    while start < order.count {
      let rank = ranks[Int(order[start])]
      var end = start + 1
      while end < order.count && ranks[Int(order[end])] == rank { end += 1 }
      sections.append((distinct[Int(rank)].key, start..<end, false))
      start = end
    }
    if let permanent = permanentSectionKey {
      let at = sections.firstIndex { !($0.key < permanent) } ?? sections.count
      if at < sections.count && sections[at].key == permanent {
        sections[at].isPermanent = true
      } else {
        sections.insert((permanent, order.count..<order.count, true), at: at)
      }
    }
    return Load(elements: elements, sequences: sequences, order: order, sections: sections)
  }

  /// Builds the content from `load`, prepared by `prepareLoad` on this index with no change
  /// since; compares nothing (no user code runs).
  ///
  /// Each section's tree is built bottom up from its elements in order: leaves filled to three
  /// quarters, then nodes of three quarters, until one root holds them all, so that a leaf takes
  /// a quarter of its capacity in insertions before it splits.
  ///
  /// - Complexity: O(n + s).
  @inlinable
  mutating func load(_ load: Load) {
    precondition(count == 0, "a bulk load needs an empty index")
    _slots.removeAll(keepingCapacity: true)
    _elements.removeAll(keepingCapacity: true)
    _freeSlot = -1
    // Detached elements that were not placed again go with the rest.
    _forgetDetached()
    _removeAllTrees(keepingCapacity: true)
    _table.removeAll()
    // A sixteenth more than the elements: the first appends after a load do not move every
    // slot (a growth copies the whole array), for 2 bytes per element.
    reserveCapacity(load.elements.count + load.elements.count / 16)
    for offset in load.elements.indices {
      let slot = _allocate(load.elements[offset], sequence: load.sequences[offset])
      precondition(slot == Int32(offset), "a bulk load allocates slots in order")
    }
    _sections.removeAll(keepingCapacity: true)
    let perLeaf = leafCapacity * 3 / 4
    let perNode = fanout * 3 / 4
    // Exactly the leaves and nodes the trees take, each time (growth by doubling kept up to
    // twice that: 5 bytes per element at 10^6).
    var (leaves, nodes) = (0, 0)
    for section in load.sections where !section.range.isEmpty {
      var trees = (section.range.count + perLeaf - 1) / perLeaf
      leaves += trees
      while trees > 1 {
        trees = (trees + perNode - 1) / perNode
        nodes += trees
      }
    }
    _reserveTrees(leaves: leaves, nodes: nodes)
    // The trees of one level: each with its element count and first slot.
    var level: [(tree: Int32, count: Int32, first: Int32)] = []
    var next: [(tree: Int32, count: Int32, first: Int32)] = []
    for section in load.sections {
      guard !section.range.isEmpty else {
        _sections.append(_Section(key: section.key, root: -1, isPermanent: section.isPermanent))
        continue
      }
      level.removeAll(keepingCapacity: true)
      for chunk in _evenChunks(section.range, atMost: perLeaf) {
        let (start, end) = (chunk.lowerBound, chunk.upperBound)
        let leaf = _newLeaf()
        let base = Int(leaf) * leafCapacity
        for position in start..<end {
          let slot = load.order[position]
          _leafEntries[base + position - start] = slot
          _slots[Int(slot)].leaf = leaf
        }
        _leafCounts[Int(leaf)] = Int32(end - start)
        level.append((leaf, Int32(end - start), load.order[start]))
      }
      var height: Int32 = 0
      while level.count > 1 {
        next.removeAll(keepingCapacity: true)
        for chunk in _evenChunks(0..<level.count, atMost: perNode) {
          let (start, end) = (chunk.lowerBound, chunk.upperBound)
          let node = _newNode(isBottom: height == 0)
          let base = Int(node) * fanout
          var total: Int32 = 0
          for k in start..<end {
            let child = level[k]
            _children[base + k - start] = child.tree
            _childCounts[base + k - start] = child.count
            _childFirsts[base + k - start] = child.first
            _setParent(of: child.tree, isLeaf: height == 0, to: node)
            total += child.count
          }
          _nodeCounts[Int(node)] = Int32(end - start)
          next.append((node, total, level[start].first))
        }
        swap(&level, &next)
        height += 1
      }
      _sections.append(
        _Section(
          key: section.key, root: level[0].tree, height: height,
          isPermanent: section.isPermanent))
    }
    _retagRoots(from: 0)
    for slot in 0..<Int32(load.elements.count) { _tableInsert(slot) }
    count = load.elements.count
    _version &+= 1
  }
}

/// `range` cut into the fewest runs of at most `most` (at least 2) that differ in length by at
/// most one: a level of a bulk-loaded tree, whose trees then all have two entries or more when
/// there are several.
@inlinable
func _evenChunks(_ range: Range<Int>, atMost most: Int) -> [Range<Int>] {
  let chunks = (range.count + most - 1) / most
  guard chunks > 0 else { return [] }
  let (size, longer) = range.count.quotientAndRemainder(dividingBy: chunks)
  return (0..<chunks).map { k in
    let start = range.lowerBound + k * size + min(k, longer)
    return start..<start + size + (k < longer ? 1 : 0)
  }
}

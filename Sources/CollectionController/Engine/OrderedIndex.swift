import Binding
import Foundation

/// The ordered, sectioned content of a relation controller: class instances grouped into sections
/// ordered by key, and ordered inside a section by a comparator with ties broken by a sequence
/// number.
///
/// Elements are identified by `ObjectIdentifier`, never by `==`. Each element has a slot: a
/// 24-byte record of its identity, its sequence number and its leaf, beside the element itself.
/// Each section is a B+tree with counts, so a row is an order statistic:
///
/// - **Leaves** hold up to `leafCapacity - 1` slot numbers in order (`Int32`, one run of
///   `leafCapacity` per leaf in one flat array), with their count and parent.
/// - **Nodes** hold up to `fanout - 1` children, each with the number of elements below it and
///   the slot of its first element, which routes a descent: a comparison with a child's first
///   element compares live (or kept) keys, so no separator copy of a key goes stale.
/// - A leaf or node that fills up splits in two; one that empties is unlinked; one that falls
///   to a quarter merges with a neighbour under the same parent when both fit in three quarters
///   of one, or else takes entries from it until the two hold about as many; a root with one
///   child hands the section to it. So every node has two children or more, and the height is
///   at most log2 of the section's leaves, however the section shrank.
///
/// Leaves and nodes are reused through free lists, slots too. An open-addressing table of
/// `Int32` slot numbers maps an identity to its slot, so finding, removing and locating an
/// element by identity needs no comparison. A position is the element's offset in its leaf plus,
/// per level, the counts of the children before it: a leaf and a few nodes, where a binary tree
/// walks 20–30 nodes (one cache miss each at 10^6).
///
/// The comparator reads live element properties, so an element whose sort or section key changed
/// must be removed **before** any other element is inserted, then inserted again:
///
/// ```swift
/// var index = _OrderedIndex<Album, Int>(comparator: { a, b in
///   a.year < b.year ? .orderedAscending : a.year > b.year ? .orderedDescending : .orderedSame
/// })
/// index.insert(album, sectionKey: album.decade, sequence: 0)
/// album.year = 1999                       // the key changed while the album sits in the index
/// index.remove(ObjectIdentifier(album))   // by identity: no comparison
/// index.insert(album, sectionKey: album.decade, sequence: 0)
/// ```
///
/// A batch does the same with `detach(contentsOf:)`, which takes the elements out of their
/// sections but keeps their slots, then an insertion of each (back into its own slot), then
/// `removeDetached()` for those that were not inserted again: a relation controller's
/// transaction, where a moved element frees and allocates nothing.
///
/// Sections exist while they hold at least one element, except the optional permanent section
/// (`permanentSectionKey`), which exists always, even when empty. A controller without sectioning
/// passes a constant key as the permanent section key and gets exactly one section at all times;
/// the change-set builder then never reports that section as inserted or deleted.
///
/// Memory: 32 bytes per slot (record and element), 4 bytes per identity-table bucket (load
/// factor at most 3/4) and 4 bytes per leaf entry (leaves three quarters full after a bulk
/// load, half full after a split, emptier after removals): about 45 bytes per element after a
/// load, plus a leaf per section.
///
/// - Complexity: With *n* elements and *s* sections, insertion takes O(log n) comparisons;
///   insertion, removal, locating an element and reading by position take O(log n) time (plus
///   O(log s) key comparisons to find a section and O(s) when a section appears or disappears;
///   the sections that a batch of removals, `remove(contentsOf:)` or `detach(contentsOf:)`,
///   empties cost O(s) once).
@usableFromInline
struct _OrderedIndex<Element: AnyObject, SectionKey: Hashable & Comparable>: ~Copyable {
  /// Compares two elements by their live sort keys; `.orderedSame` falls back to sequence numbers.
  @usableFromInline
  typealias Comparator = (Element, Element) -> ComparisonResult

  /// A section: its key and the root of its tree.
  @usableFromInline
  struct _Section {
    @usableFromInline
    var key: SectionKey
    /// The root: a leaf when `height` is 0, else a node; `-1` when the section is empty.
    @usableFromInline
    var root: Int32
    /// The number of node levels above the leaves.
    @usableFromInline
    var height: Int32 = 0
    /// Whether it is the permanent section (known without comparing keys, so that removing an
    /// element never runs the key type's `==`, which may be user code).
    @usableFromInline
    var isPermanent = false

    @inlinable
    init(key: SectionKey, root: Int32, height: Int32 = 0, isPermanent: Bool = false) {
      self.key = key
      self.root = root
      self.height = height
      self.isPermanent = isPermanent
    }
  }

  @usableFromInline
  let _comparator: Comparator
  /// The kept sort keys, when the order can be compared from them (then `_comparator` is used
  /// only to check invariants); replaced only while the index holds no element.
  @usableFromInline
  var keys: _SortKeys<Element>?
  /// The key of the section that exists even when it holds no element, if any.
  @usableFromInline
  let permanentSectionKey: SectionKey?
  /// Slot numbers per leaf (one leaf is `leafCapacity` entries; a leaf never stays full).
  @usableFromInline
  let leafCapacity: Int
  /// Children per node (a node never stays full).
  @usableFromInline
  let fanout: Int
  /// The record of every slot (a plain, non-generic struct, so that walks copy no element and
  /// need no generic metadata, even in unspecialised code).
  @usableFromInline
  var _slots: ContiguousArray<_IndexSlot> = []
  /// The element of every slot, `nil` for a free slot (parallel to `_slots`).
  @usableFromInline
  var _elements: ContiguousArray<Element?> = []
  @usableFromInline
  var _freeSlot: Int32 = -1
  /// The slots of each leaf, `leafCapacity` entries per leaf.
  @usableFromInline
  var _leafEntries: ContiguousArray<Int32> = []
  /// The number of slots in each leaf, `-1` for a free leaf.
  @usableFromInline
  var _leafCounts: ContiguousArray<Int32> = []
  /// The parent node of each leaf, `~sectionIndex` for a root, the next free leaf for a free one.
  @usableFromInline
  var _leafParents: ContiguousArray<Int32> = []
  @usableFromInline
  var _freeLeaf: Int32 = -1
  /// The children of each node, `fanout` entries per node.
  @usableFromInline
  var _children: ContiguousArray<Int32> = []
  /// The number of elements below each child (parallel to `_children`).
  @usableFromInline
  var _childCounts: ContiguousArray<Int32> = []
  /// The slot of the first element below each child (parallel to `_children`).
  @usableFromInline
  var _childFirsts: ContiguousArray<Int32> = []
  /// The number of children of each node, `-1` for a free node.
  @usableFromInline
  var _nodeCounts: ContiguousArray<Int32> = []
  /// The parent of each node, `~sectionIndex` for a root, the next free node for a free one.
  @usableFromInline
  var _nodeParents: ContiguousArray<Int32> = []
  /// Whether each node's children are leaves.
  @usableFromInline
  var _nodeIsBottom: ContiguousArray<Bool> = []
  @usableFromInline
  var _freeNode: Int32 = -1
  @usableFromInline
  var _sections: ContiguousArray<_Section> = []
  /// Identity table: element identities to slots.
  @usableFromInline
  var _table = _IdentityTable()
  /// The number of elements (detached ones not counted).
  @usableFromInline
  var count = 0
  /// The slots that `detach(contentsOf:)` took out of their leaves, kept with their identity and
  /// element until `insert(_:sequence:at:)` puts them back or `removeDetached()` frees them.
  @usableFromInline
  var _detached: ContiguousArray<Int32> = []
  /// How many of `_detached` are still out of every leaf.
  @usableFromInline
  var _detachedCount = 0
  /// Incremented by every mutation; lets a change-set builder check that it saw the old content.
  @usableFromInline
  var _version: UInt64 = 0

  /// Creates an empty index.
  ///
  /// - Parameters:
  ///   - permanentSectionKey: The key of a section that exists even when empty (pass the constant
  ///     key of an unsectioned controller), or `nil` for sections that come and go with elements.
  ///   - leafCapacity: Slots per leaf (at least 4); tests make it small so that leaves and nodes
  ///     split and merge often.
  ///   - fanout: Children per node (at least 4).
  ///   - comparator: Orders two elements of one section by their live sort keys.
  @inlinable
  init(
    permanentSectionKey: SectionKey? = nil, leafCapacity: Int = _IndexShape.leafCapacity,
    fanout: Int = _IndexShape.fanout, comparator: @escaping Comparator
  ) {
    precondition(leafCapacity >= 4 && fanout >= 4, "leaves and nodes need room for 4")
    self._comparator = comparator
    self.permanentSectionKey = permanentSectionKey
    self.leafCapacity = leafCapacity
    self.fanout = fanout
    if let key = permanentSectionKey {
      _sections.append(_Section(key: key, root: -1, isPermanent: true))
    }
  }

  /// Reserves room for `capacity` elements so that growth does not reallocate.
  @inlinable
  mutating func reserveCapacity(_ capacity: Int) {
    _slots.reserveCapacity(capacity)
    _elements.reserveCapacity(capacity)
    _reserveTable(capacity)
  }

  @inlinable
  var isEmpty: Bool { count == 0 }
}

// MARK: - Queries

extension _OrderedIndex {
  /// The number of sections, in key order.
  ///
  /// - Complexity: O(1).
  @inlinable
  var sectionCount: Int { _sections.count }

  /// The key of the section at `section`.
  ///
  /// - Complexity: O(1).
  @inlinable
  func sectionKey(at section: Int) -> SectionKey {
    _sections[section].key
  }

  /// The keys of all sections, in order.
  ///
  /// - Complexity: O(s), where *s* is the number of sections.
  @inlinable
  var sectionKeys: [SectionKey] { _sections.map { $0.key } }

  /// The index of the section with `key`, or `nil` if no such section exists.
  ///
  /// - Complexity: O(log s) key comparisons, where *s* is the number of sections.
  @inlinable
  func sectionIndex(for key: SectionKey) -> Int? {
    let i = _sectionLowerBound(key)
    return i < _sections.count && _sections[i].key == key ? i : nil
  }

  /// The number of elements in the section at `section`.
  ///
  /// - Complexity: O(fanout).
  @inlinable
  func count(inSection section: Int) -> Int {
    let root = _sections[section]
    if root.root < 0 { return 0 }
    if root.height == 0 { return Int(_leafCounts[Int(root.root)]) }
    let base = Int(root.root) * fanout
    var total = 0
    for k in 0..<Int(_nodeCounts[Int(root.root)]) { total += Int(_childCounts[base + k]) }
    return total
  }

  /// Whether the element with identity `id` is in the index.
  ///
  /// - Complexity: Expected O(1).
  @inlinable
  func contains(_ id: ObjectIdentifier) -> Bool {
    _find(id) >= 0
  }

  /// The element with identity `id`, or `nil`.
  ///
  /// - Complexity: Expected O(1).
  @inlinable
  func element(for id: ObjectIdentifier) -> Element? {
    let slot = _find(id)
    return slot < 0 ? nil : _elements[Int(slot)]
  }

  /// The sequence number the element with identity `id` was inserted with, or `nil`.
  ///
  /// - Complexity: Expected O(1).
  @inlinable
  func sequence(for id: ObjectIdentifier) -> UInt64? {
    let slot = _find(id)
    return slot < 0 ? nil : _slots[Int(slot)].sequence
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

// MARK: - Mutations

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
  /// `_KeptColumn`). Asking for them with the kept keys made a move at 10^6 2-4% faster, at
  /// 10^4 no slower (`--profile-relation`, 12 rounds interleaved in one process, three times):
  /// at 10^6 the two keys often tie at the end of a descent (13,000 albums a year, 2,000 titles).
  @inlinable
  static func _sequenceAddresses(_ slots: ContiguousArray<_IndexSlot>) -> _KeptColumn {
    slots.withUnsafeBufferPointer { slots in
      _KeptColumn(
        base: UInt(bitPattern: slots.baseAddress) &+ UInt(_IndexSlot.sequenceOffset),
        stride: MemoryLayout<_IndexSlot>.stride, count: slots.count)
    }
  }

  /// The leaf below `root` where an element goes, and its offset there, given whether it goes
  /// before the element in a slot: a binary search of the children's first elements per node,
  /// then of the leaf.
  ///
  /// Before each comparison, the descent hands `prefetch` the slots of the two comparisons
  /// that may follow it in the same node or leaf (the middles of both halves), for their keys
  /// and sequences: in a large index each comparison waits for a cache miss, and the one after
  /// it, whichever way this one goes, then finds its keys on the way. Asking for the whole
  /// node's or leaf's entries first, or for the slots two comparisons ahead, gained nothing
  /// more (interleaved in one process). A descent without kept keys prefetches nothing: its
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

  /// Removes the elements with identities `ids` (those in the index), without comparing
  /// elements, then at once the sections they left empty: `detach(contentsOf:)`, then
  /// `removeDetached()`.
  ///
  /// - Complexity: O(k log n) for k identities, plus O(s) once if a section disappears.
  ///   (Removing them one by one costs O(s) for each section that disappears, the later
  ///   sections' shift and their roots' tags: quadratic when one transaction empties many
  ///   sections, 0.6 s for 4x10^4 one-element sections.)
  @inlinable
  mutating func remove(contentsOf ids: some Sequence<ObjectIdentifier>) {
    detach(contentsOf: ids)
    removeDetached()
  }

  /// Takes the elements with identities `ids` (those in the index) out of their sections, as
  /// `remove(contentsOf:)` does, but keeps each one's slot, with its identity and element, for
  /// `insert(_:sequence:at:)` to put it back: a move then frees no slot and allocates none,
  /// and leaves the identity table and the element's reference alone.
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
}

// MARK: - Tree internals

extension _OrderedIndex {
  @inline(__always)
  @inlinable
  func _element(_ slot: Int32) -> Element {
    // Safe: only occupied slots (which always hold an element) are linked into leaves and the
    // table.
    _elements[Int(slot)]!
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

  /// The first section index whose key is not less than `key`.
  @inlinable
  func _sectionLowerBound(_ key: SectionKey) -> Int {
    _lowerBound(_sections.count) { _sections[$0].key < key }
  }

  /// Traps with a message unless `key`, the section key of `element`, is equal to itself.
  @inlinable
  static func _requireTotallyOrdered(_ key: SectionKey, of element: Element) {
    _require(
      key == key,
      "RelationController: the section key \(key) of \(element) is not equal to itself (a "
        + "floating-point NaN?); sections are ordered by key, so section keys must be totally "
        + "ordered. Map such values to a key of their own in the section function.")
  }

  /// Removes the sections left empty by `_remove(_:id:keepingEmptySection:)` (not the permanent
  /// one), and retags the roots that moved.
  @inlinable
  mutating func _removeEmptySections() {
    guard let first = _sections.firstIndex(where: { $0.root < 0 && !$0.isPermanent }) else {
      return
    }
    _sections.removeAll { $0.root < 0 && !$0.isPermanent }
    _retagRoots(from: first)
  }

  /// Stores `~sectionIndex` in the parent link of each root from `first` on.
  @inlinable
  mutating func _retagRoots(from first: Int) {
    for section in first..<_sections.count {
      let root = _sections[section]
      if root.root >= 0 { _setParent(of: root.root, isLeaf: root.height == 0, to: ~Int32(section)) }
    }
  }
}

/// The first index in `0..<count` for which `isBelow` is false, given that it is true for a
/// prefix of the range and false after (a binary search).
@inlinable
func _lowerBound(_ count: Int, _ isBelow: (Int) -> Bool) -> Int {
  var low = 0
  var high = count
  while low < high {
    let middle = (low + high) / 2
    if isBelow(middle) { low = middle + 1 } else { high = middle }
  }
  return low
}

/// The sizes of an `_OrderedIndex`'s leaves and nodes, unless its initialiser is given others.
@usableFromInline
enum _IndexShape {
  #if COLLECTION_CONTROLLER_INTERNAL_CHECKS
    // The smallest: every controller test of a checked build (the debug tests) splits, merges
    // and collapses leaves and nodes at every level, and checks the invariants after.
    @usableFromInline
    static let leafCapacity = 4
    @usableFromInline
    static let fanout = 4
  #else
    /// Four cache lines of slot numbers per leaf.
    @usableFromInline
    static let leafCapacity = 64
    /// 32 children per node: a descent binary-searches them in five comparisons.
    @usableFromInline
    static let fanout = 32
  #endif
}

/// The record of one slot of `_OrderedIndex`, or of one free slot (then `leaf` links the free
/// list).
@usableFromInline
struct _IndexSlot {
  /// The bits of the element's `ObjectIdentifier` (0 for a free slot).
  @usableFromInline
  var identity: UInt
  @usableFromInline
  var sequence: UInt64
  /// The leaf holding the slot; -1 for a detached slot (see `detach(contentsOf:)`); for a free
  /// slot the next free one (-1 for the last).
  @usableFromInline
  var leaf: Int32

  /// Where `sequence` lies in a slot, in bytes.
  @usableFromInline
  static let sequenceOffset: Int = {
    // Safe: `sequence` is a stored property without observers, so it has an offset.
    MemoryLayout<_IndexSlot>.offset(of: \.sequence)!
  }()

  @inlinable
  init(identity: UInt, sequence: UInt64, leaf: Int32) {
    self.identity = identity
    self.sequence = sequence
    self.leaf = leaf
  }
}

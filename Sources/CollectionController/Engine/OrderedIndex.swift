import Foundation

/// The ordered, sectioned content of a relation controller: class instances grouped into sections
/// ordered by key, and ordered inside a section by a comparator with ties broken by a sequence
/// number.
///
/// Elements are identified by `ObjectIdentifier`, never by `==`. Each section is a treap (a binary
/// search tree balanced by heap-ordered priorities) with subtree sizes, so a row is an order
/// statistic. All treaps share one contiguous pool of 32-byte struct nodes that hold the element,
/// its sequence number, `Int32` links (left, right, parent) and the subtree size. The priority of a
/// node is a fixed hash of its slot number, so the structure is deterministic and stores no
/// priority. Freed slots are reused through a free list. An open-addressing table of `Int32` slot
/// numbers maps an identity to its node, so finding, removing and locating an element by identity
/// needs no comparison.
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
/// Sections exist while they hold at least one element, except the optional permanent section
/// (`permanentSectionKey`), which exists always, even when empty. A controller without sectioning
/// passes a constant key as the permanent section key and gets exactly one section at all times;
/// the change-set builder then never reports that section as inserted or deleted.
///
/// Memory: 32 bytes per node plus 4 bytes per identity-table bucket (load factor at most 3/4),
/// about 37–43 bytes per element, plus whatever the arrays hold in reserve after growth.
///
/// - Complexity: With *n* elements and *s* sections, insertion, removal, locating an element and
///   reading by position take expected O(log n) time (plus O(log s) key comparisons to find a
///   section and O(s) when a section appears or disappears; the sections that a batch of
///   removals, `remove(contentsOf:)`, empties cost O(s) once).
///
/// Measured (2026-11, Swift 6.3.1 release, 2-core Linux VM; a throwaway executable compiling
/// these sources, elements are small final classes with a random `Int` key compared by a closure;
/// 200,000 operations per figure; memory is the `mallinfo2()` delta `uordblks + hblkhd` over
/// building the index, without `reserveCapacity`):
///
/// | n    | remove + reinsert | position(of:) | one-move transaction + change set | bytes/elt |
/// |------|-------------------|---------------|-----------------------------------|-----------|
/// | 10^4 | 0.6 µs            | 0.11 µs       | 2.1 µs                            | 60        |
/// | 10^5 | 1.3–1.6 µs        | 0.25–0.4 µs   | 3.1–3.6 µs                        | 52        |
/// | 10^6 | 4.7–5.0 µs        | 1.3–1.6 µs    | 6.8–7.3 µs                        | 42        |
///
/// At 10^6 the cost is cache misses: about 25 tree levels of nodes plus the element read by each
/// comparison. (Bytes per element swing with array growth: 39–43 after `reserveCapacity(n)`.)
@usableFromInline
struct _OrderedIndex<Element: AnyObject, SectionKey: Hashable & Comparable>: ~Copyable {
  /// Compares two elements by their live sort keys; `.orderedSame` falls back to sequence numbers.
  @usableFromInline
  typealias Comparator = (Element, Element) -> ComparisonResult

  /// A section: its key and the root slot of its tree (`-1` when empty).
  @usableFromInline
  struct _Section {
    @usableFromInline
    var key: SectionKey
    @usableFromInline
    var root: Int32
    /// Whether it is the permanent section (known without comparing keys, so that removing an
    /// element never runs the key type's `==`, which may be user code).
    @usableFromInline
    var isPermanent = false

    @inlinable
    init(key: SectionKey, root: Int32, isPermanent: Bool = false) {
      self.key = key
      self.root = root
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
  /// The tree links of every slot (a plain, non-generic struct, so that walking the trees
  /// copies no element and needs no generic metadata, even in unspecialised code).
  @usableFromInline
  var _nodes: ContiguousArray<_IndexNode> = []
  /// The element of every slot, `nil` for a free slot (parallel to `_nodes`).
  @usableFromInline
  var _elements: ContiguousArray<Element?> = []
  @usableFromInline
  var _freeHead: Int32 = -1
  @usableFromInline
  var _sections: ContiguousArray<_Section> = []
  /// Identity table: element identities to slots.
  @usableFromInline
  var _table = _IdentityTable()
  /// The number of elements.
  @usableFromInline
  var count = 0
  /// Incremented by every mutation; lets a change-set builder check that it saw the old content.
  @usableFromInline
  var _version: UInt64 = 0

  /// Creates an empty index.
  ///
  /// - Parameters:
  ///   - permanentSectionKey: The key of a section that exists even when empty (pass the constant
  ///     key of an unsectioned controller), or `nil` for sections that come and go with elements.
  ///   - comparator: Orders two elements of one section by their live sort keys.
  @inlinable
  init(permanentSectionKey: SectionKey? = nil, comparator: @escaping Comparator) {
    self._comparator = comparator
    self.permanentSectionKey = permanentSectionKey
    if let key = permanentSectionKey {
      _sections.append(_Section(key: key, root: -1, isPermanent: true))
    }
  }

  /// Reserves room for `capacity` elements so that growth does not reallocate.
  @inlinable
  mutating func reserveCapacity(_ capacity: Int) {
    _nodes.reserveCapacity(capacity)
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
  /// - Complexity: O(1).
  @inlinable
  func count(inSection section: Int) -> Int {
    Int(_size(_sections[section].root))
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
    return slot < 0 ? nil : _nodes[Int(slot)].sequence
  }

  /// The position of the element with identity `id`, or `nil` if it is not in the index.
  ///
  /// - Complexity: Expected O(log n), without comparisons.
  @inlinable
  func position(of id: ObjectIdentifier) -> RowPosition? {
    let slot = _find(id)
    return slot < 0 ? nil : _position(ofSlot: slot)
  }

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
  /// - Complexity: Expected O(log n).
  @inlinable
  func element(atSection section: Int, row: Int) -> Element {
    precondition(
      section >= 0 && section < _sections.count, "section \(section) out of range")
    var node = _sections[section].root
    precondition(row >= 0 && row < Int(_size(node)), "row \(row) out of range")
    var rank = Int32(row)
    while true {
      let leftSize = _size(_nodes[Int(node)].left)
      if rank < leftSize {
        node = _nodes[Int(node)].left
      } else if rank == leftSize {
        return _element(node)
      } else {
        rank -= leftSize + 1
        node = _nodes[Int(node)].right
      }
    }
  }

  /// The element at `position`.
  ///
  /// - Complexity: Expected O(log n).
  @inlinable
  func element(at position: RowPosition) -> Element {
    element(atSection: position.section, row: position.row)
  }

  /// Calls `body` with each element of the section at `section`, in order.
  ///
  /// - Complexity: O(k), where *k* is the number of elements in the section.
  @inlinable
  func forEach(inSection section: Int, _ body: (Element) throws -> Void) rethrows {
    var node = _leftmost(_sections[section].root)
    while node >= 0 {
      try body(_element(node))
      node = _successor(node)
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
  /// - Complexity: Expected O(log n) comparisons, plus O(s) when the section is new.
  @inlinable
  mutating func insert(_ element: Element, sectionKey: SectionKey, sequence: UInt64) {
    let point = insertionPoint(for: element, sectionKey: sectionKey, sequence: sequence)
    insert(element, sequence: sequence, at: point)
  }

  /// Where an element goes: the section and the leaf link it hangs from.
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
    /// The node the element hangs from, or -1 when the section is empty or new.
    @usableFromInline
    var parent: Int32
    /// Whether it hangs as `parent`'s left child.
    @usableFromInline
    var goesLeft: Bool

    @inlinable
    init(sectionKey: SectionKey, section: Int?, newSection: Int, parent: Int32, goesLeft: Bool) {
      self.sectionKey = sectionKey
      self.section = section
      self.newSection = newSection
      self.parent = parent
      self.goesLeft = goesLeft
    }
  }

  /// Finds where `element` goes, comparing it with the section's elements; changes nothing.
  ///
  /// The point is valid until the index is next changed.
  ///
  /// - Complexity: Expected O(log n) comparisons, plus O(log s) key comparisons.
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
        sectionKey: sectionKey, section: nil, newSection: lowerBound, parent: -1, goesLeft: false)
    }
    let section = lowerBound
    var parent: Int32 = -1
    var goesLeft = false
    var node = _sections[section].root
    if let comparison = keys?.stagedComparison {
      // The kept keys' stores, called without retaining them (see `_StagedComparison`). Two
      // loops, because an optional `comparison` would be copied at every step.
      while node >= 0 {
        parent = node
        goesLeft = Self._orders(comparison.compare(with: node), sequence, before: node, _nodes)
        node = goesLeft ? _nodes[Int(node)].left : _nodes[Int(node)].right
      }
    } else {
      while node >= 0 {
        parent = node
        let order = _comparator(element, _element(node))
        goesLeft = Self._orders(order, sequence, before: node, _nodes)
        node = goesLeft ? _nodes[Int(node)].left : _nodes[Int(node)].right
      }
    }
    return InsertionPoint(
      sectionKey: sectionKey, section: section, newSection: section, parent: parent,
      goesLeft: goesLeft)
  }

  /// Inserts `element` at `point`, found by `insertionPoint(for:sectionKey:sequence:)` with no
  /// change to the index since; compares no elements and no section keys.
  ///
  /// - Precondition: The element is not in the index.
  /// - Complexity: Expected O(log n), plus O(s) when the section is new.
  @inlinable
  mutating func insert(_ element: Element, sequence: UInt64, at point: InsertionPoint) {
    precondition(_find(ObjectIdentifier(element)) < 0, "the element is already in the index")
    precondition(count < Int(Int32.max) - 1, "too many elements for 32-bit node links")
    let section: Int
    if let existing = point.section {
      section = existing
    } else {
      section = point.newSection
      _sections.insert(_Section(key: point.sectionKey, root: -1), at: section)
      _retagRoots(from: section + 1)
    }
    let slot = _allocate(element, sequence: sequence)
    keys?.keepStaged(at: slot, for: element)
    let parent = point.parent
    if parent < 0 {
      precondition(_sections[section].root < 0, "stale insertion point")
      _sections[section].root = slot
      _nodes[Int(slot)].parent = ~Int32(section)
    } else {
      if point.goesLeft {
        precondition(_nodes[Int(parent)].left < 0, "stale insertion point")
        _nodes[Int(parent)].left = slot
      } else {
        precondition(_nodes[Int(parent)].right < 0, "stale insertion point")
        _nodes[Int(parent)].right = slot
      }
      _nodes[Int(slot)].parent = parent
      var ancestor = parent
      while ancestor >= 0 {
        _nodes[Int(ancestor)].size += 1
        ancestor = _nodes[Int(ancestor)].parent
      }
      let priority = Self._priority(slot)
      while true {
        let up = _nodes[Int(slot)].parent
        if up < 0 || Self._priority(up) > priority { break }
        _rotateUp(slot)
      }
    }
    _tableInsert(slot)
    count += 1
    _version &+= 1
  }

  /// Removes the element with identity `id`, without comparing elements.
  ///
  /// - Returns: The key of the element's section and its position before removal, or `nil` if
  ///   the element was not in the index. The position's section index is the old one, even when
  ///   the removal deletes the section.
  /// - Complexity: Expected O(log n), plus O(s) when the section disappears.
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
  /// elements, then at once the sections they left empty.
  ///
  /// - Complexity: Expected O(k log n) for k identities, plus O(s) once if a section
  ///   disappears. (Removing them one by one costs O(s) for each section that disappears, the
  ///   later sections' shift and their roots' tags: quadratic when one transaction empties many
  ///   sections, 0.6 s for 4x10^4 one-element sections.)
  @inlinable
  mutating func remove(contentsOf ids: some Sequence<ObjectIdentifier>) {
    var emptied = false
    for id in ids {
      let slot = _find(id)
      if slot >= 0 && _remove(slot, id: id, keepingEmptySection: true) { emptied = true }
    }
    if emptied { _removeEmptySections() }
  }

  /// Removes the element in `slot`, whose identity is `id`; a section it leaves empty is
  /// removed too, or kept (for `_removeEmptySections()`) if `keep` is set, so that no section
  /// index shifts. Returns whether it left its section empty.
  ///
  /// Its section matters only if it is a root once rotated down, and a root's parent link is
  /// its section's tag: no walk up the tree finds it (each node of a walk is a cache miss at
  /// 10^6 elements).
  @inlinable
  @discardableResult
  mutating func _remove(
    _ slot: Int32, id: ObjectIdentifier, keepingEmptySection keep: Bool
  ) -> Bool {
    var emptied = false
    _tableRemove(slot, id: id)
    // Rotate the node down until it has at most one child, then splice it out.
    while true {
      let left = _nodes[Int(slot)].left
      let right = _nodes[Int(slot)].right
      if left < 0 || right < 0 { break }
      _rotateUp(Self._priority(left) > Self._priority(right) ? left : right)
    }
    let child = _nodes[Int(slot)].left >= 0 ? _nodes[Int(slot)].left : _nodes[Int(slot)].right
    let parent = _nodes[Int(slot)].parent
    if child >= 0 { _nodes[Int(child)].parent = parent }
    if parent >= 0 {
      if _nodes[Int(parent)].left == slot {
        _nodes[Int(parent)].left = child
      } else {
        _nodes[Int(parent)].right = child
      }
      var ancestor = parent
      while ancestor >= 0 {
        _nodes[Int(ancestor)].size -= 1
        ancestor = _nodes[Int(ancestor)].parent
      }
    } else {
      let section = Int(~parent)
      _sections[section].root = child
      if child < 0 && !_sections[section].isPermanent {
        emptied = true
        if !keep {
          _sections.remove(at: section)
          _retagRoots(from: section)
        }
      }
    }
    _free(slot)
    count -= 1
    _version &+= 1
    return emptied
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
    _nodes[Int(slot)].sequence = sequence
    return true
  }

  /// Removes every element, keeping the permanent section if there is one.
  ///
  /// - Complexity: O(n).
  @inlinable
  mutating func removeAll() {
    _nodes.removeAll()
    _elements.removeAll()
    _freeHead = -1
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

// MARK: - Tree internals

extension _OrderedIndex {
  /// The sizes of the children of the node at `slot`, added; reads `_nodes` only (calling a
  /// method of the generic index from a mutating one copies the whole index).
  @inline(__always)
  @inlinable
  mutating func _childSizes(_ slot: Int) -> Int32 {
    let (left, right) = (_nodes[slot].left, _nodes[slot].right)
    return (left < 0 ? 0 : _nodes[Int(left)].size) + (right < 0 ? 0 : _nodes[Int(right)].size)
  }

  @inline(__always)
  @inlinable
  func _size(_ node: Int32) -> Int32 {
    node < 0 ? 0 : _nodes[Int(node)].size
  }

  @inline(__always)
  @inlinable
  func _element(_ node: Int32) -> Element {
    // Safe: only occupied slots (which always hold an element) are linked into trees and the table.
    _elements[Int(node)]!
  }

  /// A fixed pseudo-random priority per slot (the SplitMix64 finalizer, a bijection: no ties).
  @inline(__always)
  @inlinable
  static func _priority(_ slot: Int32) -> UInt64 {
    var z = UInt64(UInt32(bitPattern: slot)) &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Whether an element whose comparison with `node` gave `order`, and whose sequence number
  /// is `sequence`, goes before it.
  @inlinable
  @inline(__always)
  static func _orders(
    _ order: ComparisonResult, _ sequence: UInt64, before node: Int32,
    _ nodes: ContiguousArray<_IndexNode>
  ) -> Bool {
    switch order {
    case .orderedAscending: true
    case .orderedDescending: false
    case .orderedSame: sequence < nodes[Int(node)].sequence
    }
  }

  /// The position of the element in `slot`: its left subtree, plus, at each ancestor it is on
  /// the right of, what comes before it there.
  ///
  /// What comes before a right child in its parent's subtree (the parent's left subtree and the
  /// parent) is the parent's size minus the child's, so the walk reads one node per level, not
  /// the parent and its left child: at 10^5 elements, each read is a cache miss.
  @inlinable
  func _position(ofSlot slot: Int32) -> RowPosition {
    var row = _size(_nodes[Int(slot)].left)
    var node = slot
    var nodeSize = _nodes[Int(slot)].size
    var parent = _nodes[Int(slot)].parent
    while parent >= 0 {
      let up = _nodes[Int(parent)]
      if up.right == node { row += up.size - nodeSize }
      node = parent
      nodeSize = up.size
      parent = up.parent
    }
    return RowPosition(section: Int(~parent), row: Int(row))
  }

  /// Rotates `node` above its parent, keeping sizes, parent links and section roots right.
  @inlinable
  mutating func _rotateUp(_ node: Int32) {
    let x = Int(node)
    let parent = _nodes[x].parent
    let p = Int(parent)
    let grandparent = _nodes[p].parent
    if _nodes[p].left == node {
      let inner = _nodes[x].right
      _nodes[p].left = inner
      if inner >= 0 { _nodes[Int(inner)].parent = parent }
      _nodes[x].right = parent
    } else {
      let inner = _nodes[x].left
      _nodes[p].right = inner
      if inner >= 0 { _nodes[Int(inner)].parent = parent }
      _nodes[x].left = parent
    }
    _nodes[p].parent = node
    _nodes[x].parent = grandparent
    if grandparent >= 0 {
      if _nodes[Int(grandparent)].left == parent {
        _nodes[Int(grandparent)].left = node
      } else {
        _nodes[Int(grandparent)].right = node
      }
    } else {
      _sections[Int(~grandparent)].root = node
    }
    _nodes[x].size = _nodes[p].size
    _nodes[p].size = _childSizes(p) + 1
  }

  @inlinable
  func _leftmost(_ root: Int32) -> Int32 {
    var node = root
    if node < 0 { return -1 }
    while _nodes[Int(node)].left >= 0 { node = _nodes[Int(node)].left }
    return node
  }

  @inlinable
  func _successor(_ start: Int32) -> Int32 {
    let right = _nodes[Int(start)].right
    if right >= 0 { return _leftmost(right) }
    var node = start
    var parent = _nodes[Int(node)].parent
    while parent >= 0 && _nodes[Int(parent)].right == node {
      node = parent
      parent = _nodes[Int(node)].parent
    }
    return parent >= 0 ? parent : -1
  }

  @inlinable
  mutating func _allocate(_ element: Element, sequence: UInt64) -> Int32 {
    let node = _IndexNode(
      identity: UInt(bitPattern: ObjectIdentifier(element)), sequence: sequence, left: -1,
      right: -1, parent: -1, size: 1)
    if _freeHead >= 0 {
      let slot = _freeHead
      _freeHead = _nodes[Int(slot)].left
      _nodes[Int(slot)] = node
      _elements[Int(slot)] = element
      return slot
    }
    _nodes.append(node)
    _elements.append(element)
    return Int32(_nodes.count - 1)
  }

  @inlinable
  mutating func _free(_ slot: Int32) {
    _nodes[Int(slot)] = _IndexNode(
      identity: 0, sequence: 0, left: _freeHead, right: -1, parent: -1, size: 0)
    _elements[Int(slot)] = nil
    _freeHead = slot
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
      let root = _sections[section].root
      if root >= 0 { _nodes[Int(root)].parent = ~Int32(section) }
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

/// One tree node of `_OrderedIndex`, or one free slot (then `left` links the free list).
@usableFromInline
struct _IndexNode {
  /// The bits of the element's `ObjectIdentifier` (0 for a free slot).
  @usableFromInline
  var identity: UInt
  @usableFromInline
  var sequence: UInt64
  @usableFromInline
  var left: Int32
  @usableFromInline
  var right: Int32
  /// The parent slot, or for a root `~sectionIndex` (always negative).
  @usableFromInline
  var parent: Int32
  @usableFromInline
  var size: Int32

  @inlinable
  init(identity: UInt, sequence: UInt64, left: Int32, right: Int32, parent: Int32, size: Int32) {
    self.identity = identity
    self.sequence = sequence
    self.left = left
    self.right = right
    self.parent = parent
    self.size = size
  }
}

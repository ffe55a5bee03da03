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
/// album.year = 1999  // the key changed while the album sits in the index
/// index.remove(ObjectIdentifier(album))  // by identity: no comparison
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
///   the sections that a batch of removals, `detach(contentsOf:)`, empties cost O(s) once).
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

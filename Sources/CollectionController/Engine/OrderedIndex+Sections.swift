import Foundation

// The sections of `_OrderedIndex`: their keys in order, finding one by key, and the upkeep
// of their roots' tags when sections come and go.

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

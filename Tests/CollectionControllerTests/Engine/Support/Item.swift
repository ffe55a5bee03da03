import Foundation
import Testing

@testable import CollectionController

/// A model element for engine tests: a class instance with mutable sort and section keys.
final class Item: CustomStringConvertible {
  let name: String
  var sortKey: Int
  var sectionKey: Int
  var passes: Bool
  /// The order in which the item entered the relation (the index's tie-breaker).
  var sequence: UInt64

  init(_ name: String, sortKey: Int, sectionKey: Int = 0, passes: Bool = true, sequence: UInt64) {
    self.name = name
    self.sortKey = sortKey
    self.sectionKey = sectionKey
    self.passes = passes
    self.sequence = sequence
  }

  var id: ObjectIdentifier { ObjectIdentifier(self) }
  var description: String { name }

  /// Orders items by `sortKey` only; ties fall back to the index's sequence numbers.
  static func compare(_ a: Item, _ b: Item) -> ComparisonResult {
    if a.sortKey == b.sortKey { return .orderedSame }
    return a.sortKey < b.sortKey ? .orderedAscending : .orderedDescending
  }
}

typealias ItemIndex = _OrderedIndex<Item, Int>

extension _OrderedIndex where Element == Item, SectionKey == Int {
  /// An index of items sectioned by `sectionKey` and sorted by `sortKey`, with leaves and
  /// nodes of `shape` (the build's default when `nil`).
  static func items(permanentSection: Int? = nil, shape: IndexShape? = nil) -> ItemIndex {
    guard let shape else {
      return ItemIndex(permanentSectionKey: permanentSection, comparator: Item.compare)
    }
    return ItemIndex(
      permanentSectionKey: permanentSection, leafCapacity: shape.leafCapacity,
      fanout: shape.fanout, comparator: Item.compare)
  }

  mutating func insert(_ item: Item) {
    insert(item, sectionKey: item.sectionKey, sequence: item.sequence)
  }

  /// The names per section, for readable expectations.
  var names: [[String]] { sections.map { $0.map(\.name) } }
}

/// Sizes of an index's leaves and nodes for tests: the smallest, which split, merge and collapse
/// at every level within a few thousand edits, and the release build's.
enum IndexShape: CaseIterable, CustomTestStringConvertible {
  case narrow
  case wide

  var leafCapacity: Int { self == .narrow ? 4 : 64 }
  var fanout: Int { self == .narrow ? 4 : 32 }
  var testDescription: String { "\(self) (\(leafCapacity)/\(fanout))" }
}

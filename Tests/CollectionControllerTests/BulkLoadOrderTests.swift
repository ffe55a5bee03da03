import Binding
import Foundation
import TestSupport
import Testing

@testable import CollectionController

/// The bulk load of kept `Int` keys (`SortDescriptor`s on an `Int`, the tests of the former
/// `SortKey` that are not about its own API) orders as `sorted(using:)` does.
@Suite struct BulkLoadOrderTests {
  typealias Agreement = SortKeyAgreementTests
}

extension BulkLoadOrderTests {
  /// A bulk load sorts `Int` keys by counting when their range is narrow and by comparing
  /// otherwise: both orders agree with `sorted(using:)`, in both directions, with ties, with
  /// negative values and with ranges as wide as `Int` (whose width overflows).
  @Test(arguments: [
    ("narrow, negative", [-3, -1, 0, 2, -3]),
    ("wide", [Int.min, -1, 0, 1, Int.max]),
    ("moderate", [0, 1_000, 5_000, 17, 400]),
  ])
  func bulkLoadsOfIntKeysOrderAsSortedUsing(_ name: String, _ pool: [Int]) throws {
    var rng = SplitMix64(seed: 17)
    let shelf = Shelf()
    shelf.records = (0..<300).map { id in
      let record = Record(id: id)
      record.count = pool[Int(rng.next() % UInt64(pool.count))]
      record.title = Agreement.titles[Int(rng.next() % UInt64(Agreement.titles.count))]
      return record
    }
    for order in [SortOrder.forward, .reverse] {
      let orders: [[SortDescriptor<Record>]] = [
        [SortDescriptor(\Record.count, order: order)],
        // Ties of counts ordered by title (descending too).
        [SortDescriptor(\Record.count, order: order), SortDescriptor(\Record.title, order: order)],
      ]
      for keys in orders {
        let controller = try RelationController(
          \.records, of: shelf, sortedBy: keys, delivery: .synchronous)
        #expect(controller.objects.map(\.id) == Agreement.expected(shelf, keys), "\(name) \(order)")
      }
    }
  }
}

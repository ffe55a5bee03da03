import Binding
import Foundation
import TestSupport
import Testing

@testable import CollectionController

/// `SortKey`, the typed sort comparator: its kept keys order exactly as `sorted(using:)` orders
/// with the same sort keys (on random data with many ties, for every key type it keeps, after
/// the build, random writes, relation edits and a reconfiguration), its order is that of the
/// `SortDescriptor` on the same key path (of `<` for strings), and it is checked like one.
@Suite struct TypedSortKeyTests {}

extension TypedSortKeyTests {
  typealias Agreement = SortKeyAgreementTests

  /// Sort-key lists, each kept (checked below), then some that are compared live.
  static let orders: [(name: String, keys: [SortKey<Record>])] = [
    ("Int", [SortKey(\.count)]),
    ("Int reverse", [SortKey(\.count, order: .reverse)]),
    ("Double", [SortKey(\.score)]),
    ("String", [SortKey(\.title)]),
    ("String reverse", [SortKey(\.title, order: .reverse)]),
    ("Int?", [SortKey(\.rank)]),
    ("Int? reverse", [SortKey(\.rank, order: .reverse)]),
    ("String?", [SortKey(\.subtitle)]),
    ("String? reverse", [SortKey(\.subtitle, order: .reverse)]),
    ("Date", [SortKey(\.date)]),
    ("UInt8 reverse", [SortKey(\.small, order: .reverse)]),
    ("computed", [SortKey(\.titleLength)]),
    (
      "Int then String reverse then Double",
      [SortKey(\.count), SortKey(\.title, order: .reverse), SortKey(\.score)]
    ),
    ("UInt8 reverse then Int?", [SortKey(\.small, order: .reverse), SortKey(\.rank)]),
    ("order changed after init", [changedOrder]),
    // Compared live (a type of the user's: its `<` may read objects).
    ("enum (live)", [SortKey(\.grade)]),
    ("enum reverse then Int? (live)", [SortKey(\.grade, order: .reverse), SortKey(\.rank)]),
  ]

  /// How many of `orders` are kept (the first ones).
  static let keptCount = orders.count - 2

  /// A sort key whose `order` was changed after it was made: unlike a `SortDescriptor`, it
  /// sorts in its current order, kept or not.
  static var changedOrder: SortKey<Record> {
    var key = SortKey(\Record.title)
    key.order = .reverse
    return key
  }

  @Test(arguments: 0..<orders.count)
  func keptKeysOrderAsSortedUsing(_ order: Int) throws {
    let (name, keys) = Self.orders[order]
    try Agreement.checkAgreement(
      name, keys, kept: order < Self.keptCount,
      then: Self.orders[(order + 1) % Self.orders.count].keys, seed: UInt64(order) &+ 7)
  }

  /// A sort key orders as the `SortDescriptor` on the same key path (both stable, so the
  /// whole order is compared, ties included); strings as `<` does, in both directions.
  @Test func aSortKeyOrdersAsTheDescriptorOnItsKeyPath() {
    var rng = SplitMix64(seed: 5)
    let records = Agreement.makeShelf(400, &rng).records
    func ids(_ sorted: [Record]) -> [Int] { sorted.map(\.id) }
    func same(_ key: SortKey<Record>, _ descriptor: SortDescriptor<Record>) {
      #expect(
        ids(records.sorted(using: key)) == ids(records.sorted(using: descriptor)), "\(key)")
    }
    for order in [SortOrder.forward, .reverse] {
      same(SortKey(\.count, order: order), SortDescriptor(\.count, order: order))
      same(SortKey(\.score, order: order), SortDescriptor(\.score, order: order))
      same(SortKey(\.rank, order: order), SortDescriptor(\.rank, order: order))
      same(SortKey(\.date, order: order), SortDescriptor(\.date, order: order))
      same(SortKey(\.small, order: order), SortDescriptor(\.small, order: order))
      same(SortKey(\.grade, order: order), SortDescriptor(\.grade, order: order))
      // Strings: `<`, stably.
      let byTitle = records.enumerated().sorted { a, b in
        let (x, y) = (a.element.title, b.element.title)
        if x != y { return order == .forward ? x < y : y < x }
        return a.offset < b.offset
      }
      #expect(
        ids(records.sorted(using: SortKey(\.title, order: order))) == byTitle.map(\.element.id))
      let bySubtitle = records.enumerated().sorted { a, b in
        switch (a.element.subtitle, b.element.subtitle) {
        case (let x?, let y?) where x != y: return order == .forward ? x < y : y < x
        case (nil, _?): return order == .forward
        case (_?, nil): return order == .reverse
        default: return a.offset < b.offset
        }
      }
      #expect(
        ids(records.sorted(using: SortKey(\.subtitle, order: order)))
          == bySubtitle.map(\.element.id))
    }
  }

  /// A NaN key sorts after every number (before, in reverse order), kept or compared.
  @Test(arguments: [SortOrder.forward, .reverse])
  func aNaNKeyHasOneDefinedPlace(_ order: SortOrder) throws {
    let shelf = Shelf()
    shelf.records = (0..<6).map { Record(id: $0) }
    for (record, score) in zip(shelf.records, [2.0, .nan, 1, .nan, 3, 0]) { record.score = score }
    let key = SortKey(\Record.score, order: order)
    let controller = try RelationController(
      \.records, of: shelf, sortedBy: [key], delivery: .synchronous)
    let ascending = [5, 2, 0, 4, 1, 3]
    let expected = order == .forward ? ascending : [1, 3, 4, 0, 2, 5]
    #expect(controller.objects.map(\.id) == expected)
    #expect(shelf.records.sorted(using: key).map(\.id) == expected)
    shelf.records[5].score = .nan
    shelf.records[1].score = -1
    let next = order == .forward ? [1, 2, 0, 4, 3, 5] : [3, 5, 4, 0, 2, 1]
    #expect(controller.objects.map(\.id) == next)
    #expect(shelf.records.sorted(using: key).map(\.id) == next)
  }

  /// Equal when the key path and the order are; hashed alike then; described by both.
  @Test func equalityHashingAndDescription() {
    let key = SortKey(\Record.count)
    #expect(key == SortKey(\Record.count))
    #expect(key.hashValue == SortKey(\Record.count).hashValue)
    #expect(key != SortKey(\Record.count, order: .reverse))
    #expect(key != SortKey(\Record.small))
    var reversed = key
    reversed.order = .reverse
    #expect(reversed == SortKey(\Record.count, order: .reverse))
    #expect(Set([key, SortKey(\Record.count), reversed]).count == 2)
    // A key path to an `@Observed` property describes itself as a computed one.
    let path = "\(\Record.count as AnyKeyPath)"
    #expect(key.description == "SortKey(\(path))")
    #expect(reversed.description == "SortKey(\(path), order: .reverse)")
  }
}

/// A sort key on a plain `var` is rejected as a `SortDescriptor` on it is.
@Suite struct TypedSortKeyMisuseTests {
  @Test func aSortKeyOnAPlainPropertyIsRejected() {
    let albums = [Album("a", year: 1990), Album("b", year: 1980), Album("c", year: 1985)]
    for (index, album) in albums.enumerated() { album.plain = index }
    let artist = Artist(albums)
    var message = ""
    do {
      _ = try RelationController(
        \.albums, of: artist, sortedBy: [SortKey(\.year), SortKey(\.plain)])
    } catch {
      message = "\(error)"
    }
    #expect(
      message.contains(
        "the sort comparator 2 of 2 (on \\Album.plain) reads no @Observed property of Album"),
      "\(message)")
  }
}

extension TypedSortKeyTests {
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
      let orders: [[SortKey<Record>]] = [
        [SortKey(\Record.count, order: order)],
        // Ties of counts ordered by title (descending too).
        [SortKey(\Record.count, order: order), SortKey(\Record.title, order: order)],
      ]
      for keys in orders {
        let controller = try RelationController(
          \.records, of: shelf, sortedBy: keys, delivery: .synchronous)
        #expect(controller.objects.map(\.id) == Agreement.expected(shelf, keys), "\(name) \(order)")
      }
      let descriptors = [SortDescriptor(\Record.count, order: order)]
      let controller = try RelationController(
        \.records, of: shelf, sortedBy: descriptors, delivery: .synchronous)
      #expect(
        controller.objects.map(\.id) == shelf.records.sorted(using: descriptors).map(\.id),
        "\(name) \(order), descriptors")
    }
  }
}

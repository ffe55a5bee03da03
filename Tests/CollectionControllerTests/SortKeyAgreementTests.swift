import Binding
import Foundation
import TestSupport
import Testing

@testable import CollectionController

/// Kept sort keys (read once per placement, compared with specialised code) must order exactly
/// as `sorted(using:)` orders with the same `SortDescriptor`s: checked on random data with many
/// ties, for every key type the controller specialises, after the build, after random writes
/// and relation edits, and after a reconfiguration.
@Suite struct SortKeyAgreementTests {}

/// A grade: a `Comparable` enum (a value type of the user's own).
enum Grade: Int, Comparable {
  case low, middle, high
  static func < (a: Grade, b: Grade) -> Bool { a.rawValue < b.rawValue }
}

/// One model with a property of every specialised key type.
final class Record: ObservableModel, CustomStringConvertible {
  let observation = ObservationStorage()
  let id: Int
  @Observed var count = 0
  @Observed var score = 0.0
  @Observed var title = ""
  @Observed var rank: Int?
  @Observed var subtitle: String?
  @Observed var date = Date(timeIntervalSince1970: 0)
  /// A key of an optional type kept by the generic store (`Date?`).
  @Observed var due: Date?
  @Observed var grade = Grade.low
  @Observed var small: UInt8 = 0
  @Observed var tag = Tag("")

  init(id: Int) { self.id = id }
  var description: String { "Record(\(id))" }
  /// Computed: a key path through a computed property is kept too.
  var titleLength: Int { title.count }
  var byTag: ByTag { ByTag(tag: tag) }
}

/// An object a key compares through.
final class Tag: ObservableModel {
  let observation = ObservationStorage()
  @Observed var name: String
  init(_ name: String) { self.name = name }
}

/// A key of the user's whose order is its tag's name.
struct ByTag: Comparable {
  let tag: Tag
  static func < (a: ByTag, b: ByTag) -> Bool { a.tag.name < b.tag.name }
  static func == (a: ByTag, b: ByTag) -> Bool { a.tag.name == b.tag.name }
}

final class Shelf: ObservableModel {
  let observation = ObservationStorage()
  @Observed var records: [Record] = []
}

extension SortKeyAgreementTests {
  /// Descriptor lists, each specialised (checked below), then some that are compared live.
  static let orders: [(name: String, descriptors: [SortDescriptor<Record>])] = [
    ("Int", [SortDescriptor(\.count)]),
    ("Int reverse", [SortDescriptor(\.count, order: .reverse)]),
    ("Double", [SortDescriptor(\.score)]),
    ("String", [SortDescriptor(\.title)]),
    ("String reverse", [SortDescriptor(\.title, order: .reverse)]),
    ("String lexical", [SortDescriptor(\.title, comparator: .lexical)]),
    ("String lexical reverse", [SortDescriptor(\.title, comparator: .lexical, order: .reverse)]),
    ("Int?", [SortDescriptor(\.rank)]),
    ("Int? reverse", [SortDescriptor(\.rank, order: .reverse)]),
    ("String?", [SortDescriptor(\.subtitle)]),
    (
      "String? lexical reverse", [SortDescriptor(\.subtitle, comparator: .lexical, order: .reverse)]
    ),
    ("Date", [SortDescriptor(\.date)]),
    ("Date?", [SortDescriptor(\.due)]),
    ("Date? reverse", [SortDescriptor(\.due, order: .reverse)]),
    ("UInt8", [SortDescriptor(\.small, order: .reverse)]),
    ("computed", [SortDescriptor(\.titleLength)]),
    (
      "Int then String reverse then Double",
      [
        SortDescriptor(\.count), SortDescriptor(\.title, order: .reverse),
        SortDescriptor(\.score),
      ]
    ),
    (
      "UInt8 reverse then Int?", [SortDescriptor(\.small, order: .reverse), SortDescriptor(\.rank)]
    ),
    // Compared live (not kept): the same agreement must hold.
    ("enum (live)", [SortDescriptor(\.grade)]),
    ("order changed after init (live)", [changedOrder]),
    (
      "enum reverse then Int? (live)",
      [SortDescriptor(\.grade, order: .reverse), SortDescriptor(\.rank)]
    ),
  ]

  /// How many of `orders` are kept (the first ones).
  static let keptCount = orders.count - 3

  /// A descriptor whose `order` was changed after it was made: Foundation keeps comparing in
  /// the order it was made with.
  static var changedOrder: SortDescriptor<Record> {
    var descriptor = SortDescriptor(\Record.title)
    descriptor.order = .reverse
    return descriptor
  }

  static let titles = ["", "a", "A", "b", "ab", "é", "e\u{301}", "10", "9", "Zebra", "zebra"]
  static let scores: [Double] = [-1.5, 0.0, -0.0, 0.5, 2, 1e9, -.infinity]

  static func randomize(_ record: Record, _ rng: inout SplitMix64, field: Int? = nil) {
    switch field ?? Int(rng.next() % 9) {
    case 0: record.count = Int(rng.next() % 5)
    case 1: record.score = scores[Int(rng.next() % UInt64(scores.count))]
    case 2: record.title = titles[Int(rng.next() % UInt64(titles.count))]
    case 3: record.rank = rng.next() % 3 == 0 ? nil : Int(rng.next() % 4)
    case 4:
      record.subtitle = rng.next() % 3 == 0 ? nil : titles[Int(rng.next() % UInt64(titles.count))]
    case 5: record.date = Date(timeIntervalSince1970: Double(rng.next() % 4) * 86_400)
    case 6: record.grade = Grade(rawValue: Int(rng.next() % 3))!  // 0..<3 are all cases
    case 7:
      record.due = rng.next() % 3 == 0 ? nil : Date(timeIntervalSince1970: Double(rng.next() % 3))
    default: record.small = UInt8(rng.next() % 4)
    }
  }

  static func makeShelf(_ count: Int, _ rng: inout SplitMix64) -> Shelf {
    let shelf = Shelf()
    shelf.records = (0..<count).map { id in
      let record = Record(id: id)
      for field in 0..<9 { randomize(record, &rng, field: field) }
      return record
    }
    return shelf
  }

  /// How many random writes `edit` makes: 75 by default (each order's case then takes well
  /// under a second in debug), more with `SORT_KEY_AGREEMENT_STEPS` (CI's long step in
  /// `.ci/run` makes 300).
  static let steps = RelationControllerFuzzTests.environment("SORT_KEY_AGREEMENT_STEPS") ?? 75

  /// `steps` random writes, with a relation edit every 25 (ties follow the relation order) and
  /// a `coalesce` block of 10 writes every 50; `check` runs after each step.
  static func edit(
    _ shelf: Shelf, _ rng: inout SplitMix64, check: (Int) throws -> Void
  ) rethrows {
    for step in 0..<steps {
      randomize(shelf.records[Int(rng.next() % UInt64(shelf.records.count))], &rng)
      if step % 25 == 0 {
        let moved = shelf.records.remove(at: Int(rng.next() % UInt64(shelf.records.count)))
        shelf.records.insert(moved, at: Int(rng.next() % UInt64(shelf.records.count + 1)))
      }
      if step % 50 == 0 {
        coalesce {
          for _ in 0..<10 {
            randomize(shelf.records[Int(rng.next() % UInt64(shelf.records.count))], &rng)
          }
        }
      }
      try check(step)
    }
  }

  static func expected<Comparator: SortComparator<Record>>(
    _ shelf: Shelf, _ comparators: [Comparator]
  ) -> [Int] {
    // `sorted(using:)` is stable: ties keep relation order, as in the controller.
    shelf.records.sorted(using: comparators).map(\.id)
  }

  /// Checks that a controller sorted by `comparators` keeps its keys exactly when `kept` says,
  /// and orders as `sorted(using:)` does after the build, after each random edit and after a
  /// reconfiguration to `other` (shared by the `SortDescriptor` and `SortKey` suites).
  static func checkAgreement<Comparator: SortComparator<Record>>(
    _ name: String, _ comparators: [Comparator], kept: Bool, then other: [Comparator],
    seed: UInt64
  ) throws {
    #expect((_SortKeys<Record>.make(comparators) != nil) == kept, "\(name): kept keys or not")
    var rng = SplitMix64(seed: seed)
    let shelf = makeShelf(200, &rng)
    let controller = try RelationController(
      \.records, of: shelf, sortedBy: comparators, delivery: .synchronous)
    func content() -> [Int] { controller.objects.map(\.id) }
    #expect(content() == expected(shelf, comparators), "\(name) after the build")
    try edit(shelf, &rng) { step in
      try #require(content() == expected(shelf, comparators), "\(name) after step \(step)")
    }
    try controller.reconfigure { $0.sortedBy = other }
    #expect(content() == expected(shelf, other), "\(name) reconfigured")
  }

  @Test(arguments: 0..<orders.count)
  func keptKeysOrderAsSortedUsing(_ order: Int) throws {
    let (name, descriptors) = Self.orders[order]
    try Self.checkAgreement(
      name, descriptors, kept: order < Self.keptCount,
      then: Self.orders[(order + 1) % Self.orders.count].descriptors, seed: UInt64(order) &+ 99)
  }

  /// What cannot be kept compares live elements, as before: another comparator type, a type
  /// of the user's (its `<` may read objects), a descriptor whose order was changed after it
  /// was made.
  @Test func descriptorsThatCannotBeKeptAreNotSpecialised() {
    #expect(_SortKeys<Record>.make([KeyPathComparator(\Record.count)]) == nil)
    #expect(_SortKeys<Record>.make([SortDescriptor(\.count), KeyPathComparator(\.title)]) == nil)
    #expect(_SortKeys<Record>.make([SortDescriptor(\.grade)]) == nil)
    #expect(_SortKeys<Record>.make([SortDescriptor(\.byTag)]) == nil)
    #expect(_SortKeys<Record>.make([Self.changedOrder]) == nil)
    #expect(_SortKeys<Record>.make([]) != nil)
  }

  /// A descent asks for the keys of its next comparisons at the addresses its first two stores
  /// report: for every kept key type, each slot's address is that of the value kept there, and
  /// no slot past the kept ones is asked for. (A wrong address would not change an order, only
  /// make the prefetch useless, so this is the one place it shows.)
  @Test(arguments: 0..<keptCount)
  func theKeptAddressesAreThoseOfTheKeptValues(_ order: Int) throws {
    let (name, descriptors) = Self.orders[order]
    let keys = try #require(_SortKeys<Record>.make(descriptors))
    var rng = SplitMix64(seed: UInt64(order))
    let records = Self.makeShelf(37, &rng).records
    for (slot, record) in records.enumerated() { keys.keep(record, at: Int32(slot)) }
    let addresses = keys.stagedComparison.addresses()
    let columns = [addresses.first, addresses.second]
    for (index, column) in columns.enumerated() {
      guard index < keys.stores.count else {
        #expect(column.count == 0, "\(name): no store \(index)")
        continue
      }
      let kept = try #require(Self.keptAddresses(keys.stores[index]))
      #expect(column.count == records.count, "\(name): store \(index) count")
      for slot in records.indices {
        #expect(
          column.base &+ UInt(slot &* column.stride) == kept(slot),
          "\(name): store \(index), slot \(slot)")
      }
    }
  }

  /// The address of each value `store` keeps, by slot (read from its values).
  static func keptAddresses(_ store: any _KeyStore) -> ((Int) -> UInt)? {
    func open<Store: _TypedKeyStore>(_ store: Store) -> (Int) -> UInt {
      // Safe: the store keeps values at every slot asked for, so its buffer has an address.
      { slot in store.values.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress! + slot) } }
    }
    guard let typed = store as? any _TypedKeyStore else { return nil }
    return open(typed)
  }

  /// A key of the user's type whose `<` reads an object: the controller compares live, so
  /// renaming the object re-sorts (a kept value would neither see the rename nor stay
  /// ordered).
  @Test func aKeyComparingThroughAnObjectFollowsTheObject() throws {
    let tags = (0..<5).map { Tag("t\($0)") }
    let shelf = Shelf()
    shelf.records = (0..<20).map { id in
      let record = Record(id: id)
      record.tag = tags[id % tags.count]
      return record
    }
    let descriptors = [SortDescriptor(\Record.byTag)]
    let controller = try RelationController(
      \.records, of: shelf, sortedBy: descriptors, delivery: .synchronous)
    #expect(controller.objects.map(\.id) == Self.expected(shelf, descriptors))
    tags[0].name = "z"
    tags[3].name = "a"
    #expect(controller.objects.map(\.id) == Self.expected(shelf, descriptors))
    #expect(controller.objects.first?.tag === tags[3])
  }

  /// A NaN key sorts after every number (before, in reverse order): one defined place,
  /// whatever the order of the edits.
  @Test(arguments: [SortOrder.forward, .reverse])
  func aNaNKeyHasOneDefinedPlace(_ order: SortOrder) throws {
    let shelf = Shelf()
    shelf.records = (0..<6).map { Record(id: $0) }
    for (record, score) in zip(shelf.records, [2.0, .nan, 1, .nan, 3, 0]) { record.score = score }
    let controller = try RelationController(
      \.records, of: shelf, sortedBy: [SortDescriptor(\.score, order: order)],
      delivery: .synchronous)
    let ascending = [5, 2, 0, 4, 1, 3]
    #expect(controller.objects.map(\.id) == (order == .forward ? ascending : [1, 3, 4, 0, 2, 5]))
    shelf.records[5].score = .nan
    shelf.records[1].score = -1
    let next = [1, 2, 0, 4, 3, 5]
    let reversed = [3, 5, 4, 0, 2, 1]
    #expect(controller.objects.map(\.id) == (order == .forward ? next : reversed))
  }
}

import Foundation
import TestSupport
import Testing

@testable import CollectionController

@Suite struct ChangeSetBuilderTests {}

private func p(_ section: Int, _ row: Int) -> RowPosition {
  RowPosition(section: section, row: row)
}

private typealias Move = RelationChangeSet<Item>.Move

extension ChangeSetBuilderTests {
  /// A single-section relation a(10) b(20) c(30) d(40) e(50).
  private func fiveItems() -> (Relation, [Item]) {
    let relation = Relation(permanentSection: 0)
    let items = ["a", "b", "c", "d", "e"].enumerated().map { relation.make($1, ($0 + 1) * 10) }
    relation.load(items)
    return (relation, items)
  }

  @Test(arguments: [(5, 0), (25, 2), (60, 5)])
  func insertAtFrontMiddleAndEnd(sortKey: Int, row: Int) throws {
    let (relation, _) = fiveItems()
    let x = relation.make("x", sortKey)
    relation.add(x)
    let changes = try #require(try relation.commit([(x, false)]))
    #expect(changes.insertedRows == [p(0, row)])
    #expect(changes.insertedElements.map(\.name) == ["x"])
    #expect(changes.deletedRows.isEmpty && changes.movedRows.isEmpty)
    #expect(changes.insertedSections.isEmpty && changes.deletedSections.isEmpty)
  }

  @Test func delete() throws {
    let (relation, items) = fiveItems()
    relation.remove(items[2])
    let changes = try #require(try relation.commit([(items[2], false)]))
    #expect(changes.deletedRows == [p(0, 2)])
    #expect(changes.deletedElements.map(\.name) == ["c"])
    #expect(changes.insertedRows.isEmpty && changes.movedRows.isEmpty)
  }

  @Test func moveIsOneMove() throws {
    let (relation, items) = fiveItems()
    items[0].sortKey = 45
    let changes = try #require(try relation.commit([(items[0], false)]))
    #expect(changes.movedRows == [Move(from: p(0, 0), to: p(0, 3), changed: false)])
    #expect(changes.movedElements.map(\.name) == ["a"])
    #expect(changes.updatedRows.isEmpty && changes.insertedRows.isEmpty)
  }

  @Test func swapOfDistantElementsReportsBothMoves() throws {
    let (relation, items) = fiveItems()
    items[0].sortKey = 45
    items[3].sortKey = 5
    let changes = try #require(try relation.commit([(items[0], false), (items[3], false)]))
    #expect(
      Set(changes.movedRows)
        == [
          Move(from: p(0, 0), to: p(0, 3), changed: false),
          Move(from: p(0, 3), to: p(0, 0), changed: false),
        ])
  }

  @Test func swapOfNeighboursNeedsOneMove() throws {
    let (relation, items) = fiveItems()
    items[1].sortKey = 30
    items[2].sortKey = 20
    let changes = try #require(try relation.commit([(items[1], false), (items[2], false)]))
    #expect(changes.movedRows.count == 1)
  }

  @Test func moveAndChangeIsAChangedMove() throws {
    let (relation, items) = fiveItems()
    items[4].sortKey = 15
    let changes = try #require(try relation.commit([(items[4], true)]))
    #expect(changes.movedRows == [Move(from: p(0, 4), to: p(0, 1), changed: true)])
    #expect(changes.updatedRows.isEmpty)
  }

  @Test func updateInPlace() throws {
    let (relation, items) = fiveItems()
    items[1].sortKey = 21  // still between a and c
    let changes = try #require(try relation.commit([(items[1], true)]))
    #expect(changes.updatedRows == [p(0, 1)])
    #expect(changes.updatedElements.map(\.name) == ["b"])
    #expect(changes.movedRows.isEmpty)
  }

  @Test func deleteAndUpdateUseOldPositions() throws {
    let (relation, items) = fiveItems()
    relation.remove(items[0])
    let changes = try #require(try relation.commit([(items[0], false), (items[3], true)]))
    #expect(changes.deletedRows == [p(0, 0)])
    #expect(changes.updatedRows == [p(0, 3)])
    #expect(changes.movedRows.isEmpty)
  }

  @Test func insertAndMoveUseNewPositions() throws {
    let (relation, items) = fiveItems()
    let x = relation.make("x", 1)
    relation.add(x)
    items[4].sortKey = 35
    let changes = try #require(try relation.commit([(x, false), (items[4], false)]))
    #expect(changes.insertedRows == [p(0, 0)])
    #expect(changes.movedRows == [Move(from: p(0, 4), to: p(0, 4), changed: false)])
  }

  @Test func sectionsAppearAndDisappear() throws {
    let relation = Relation()
    let a = relation.make("a", 1, section: 10)
    let b = relation.make("b", 1, section: 20)
    relation.load([a, b])
    let c = relation.make("c", 1, section: 15)
    relation.add(c)
    let appeared = try #require(try relation.commit([(c, false)]))
    #expect(Array(appeared.insertedSections) == [1])
    #expect(appeared.insertedSectionElements.map { $0.map(\.name) } == [["c"]])
    #expect(appeared.insertedRows.isEmpty)
    relation.remove(a)
    let vanished = try #require(try relation.commit([(a, true)]))
    #expect(Array(vanished.deletedSections) == [0])
    #expect(vanished.deletedSectionElements.map { $0.map(\.name) } == [["a"]])
    #expect(vanished.deletedRows.isEmpty && vanished.updatedRows.isEmpty)
  }

  @Test func elementMovingIntoANewSectionIsARowDelete() throws {
    let relation = Relation()
    let a = relation.make("a", 1, section: 10)
    let b = relation.make("b", 2, section: 10)
    relation.load([a, b])
    a.sectionKey = 30
    let changes = try #require(try relation.commit([(a, true)]))
    #expect(Array(changes.insertedSections) == [1])
    #expect(changes.deletedRows == [p(0, 0)])
    #expect(changes.movedRows.isEmpty && changes.updatedRows.isEmpty)
  }

  @Test func elementLeavingAVanishingSectionIsARowInsert() throws {
    let relation = Relation()
    let a = relation.make("a", 1, section: 10)
    let b = relation.make("b", 2, section: 20)
    relation.load([a, b])
    a.sectionKey = 20
    a.sortKey = 3
    let changes = try #require(try relation.commit([(a, false)]))
    #expect(Array(changes.deletedSections) == [0])
    #expect(changes.insertedRows == [p(0, 1)])
    #expect(changes.movedRows.isEmpty)
  }

  @Test func elementMovingBetweenSurvivingSectionsIsAMove() throws {
    let relation = Relation()
    let a = relation.make("a", 1, section: 10)
    let b = relation.make("b", 2, section: 10)
    let c = relation.make("c", 1, section: 20)
    relation.load([a, b, c])
    a.sectionKey = 20
    let changes = try #require(try relation.commit([(a, false)]))
    // Ties in sortKey: a entered before c, so it goes first.
    #expect(changes.movedRows == [Move(from: p(0, 0), to: p(1, 0), changed: false)])
  }

  @Test func sectionReplacedByAnotherKey() throws {
    let relation = Relation()
    let a = relation.make("a", 1, section: 10)
    relation.load([a])
    a.sectionKey = 20
    let changes = try #require(try relation.commit([(a, false)]))
    #expect(Array(changes.deletedSections) == [0])
    #expect(Array(changes.insertedSections) == [0])
    #expect(changes.movedRows.isEmpty && changes.insertedRows.isEmpty)
  }

  @Test func tiesKeepEntryOrderSoTouchingMovesNothing() throws {
    let relation = Relation(permanentSection: 0)
    let items = (0..<5).map { relation.make("i\($0)", 7) }
    relation.load(items)
    let changes = try relation.commit(items.map { ($0, false) })
    #expect(changes == nil)
    #expect(relation.index.names == [["i0", "i1", "i2", "i3", "i4"]])
  }

  @Test func nothingVisibleGivesNil() throws {
    let (relation, items) = fiveItems()
    #expect(try relation.commit([]) == nil)
    #expect(try relation.commit([(items[2], false)]) == nil)
    let hidden = relation.make("hidden", 3, passes: false)
    relation.add(hidden)
    #expect(try relation.commit([(hidden, true)]) == nil)
    hidden.sortKey = 99
    #expect(try relation.commit([(hidden, true)]) == nil)
  }

  @Test func enteringOrLeavingTheFilterIsNeverAlsoAnUpdate() throws {
    let (relation, items) = fiveItems()
    items[1].passes = false
    let left = try #require(try relation.commit([(items[1], true)]))
    #expect(left.deletedRows == [p(0, 1)] && left.updatedRows.isEmpty)
    items[1].passes = true
    let entered = try #require(try relation.commit([(items[1], true)]))
    #expect(entered.insertedRows == [p(0, 1)] && entered.updatedRows.isEmpty)
  }

  @Test func permanentSectionIsNeverInsertedOrDeleted() throws {
    let relation = Relation(permanentSection: 0)
    let a = relation.make("a", 1)
    relation.add(a)
    let first = try #require(try relation.commit([(a, false)]))
    #expect(first.insertedSections.isEmpty && first.insertedRows == [p(0, 0)])
    relation.remove(a)
    let last = try #require(try relation.commit([(a, false)]))
    #expect(last.deletedSections.isEmpty && last.deletedRows == [p(0, 0)])
    #expect(relation.index.sectionCount == 1)
  }

  @Test func wholeRelationReplacement() throws {
    let relation = Relation()
    var rng = SplitMix64(seed: 7)
    let old = (0..<200).map {
      relation.make("o\($0)", Int.random(in: 0..<40, using: &rng), section: $0 % 3)
    }
    relation.load(old)
    var touched: [(Item, Bool)] = []
    for item in old where Int.random(in: 0..<4, using: &rng) == 0 {
      relation.remove(item)
      touched.append((item, false))
    }
    for item in old where Int.random(in: 0..<4, using: &rng) == 0 {
      item.sortKey = Int.random(in: 0..<40, using: &rng)
      touched.append((item, Bool.random(using: &rng)))
    }
    for n in 0..<60 {
      let item = relation.make("n\(n)", Int.random(in: 0..<40, using: &rng), section: n % 5)
      relation.add(item)
      touched.append((item, false))
    }
    let changes = try #require(try relation.commit(touched))
    #expect(Array(changes.insertedSections) == [3, 4])
  }

  @Test func replayerShowsASwapReportedAsOneMoveGoesWrong() throws {
    // MZ reported an exchange of rows 0 and 3 as one move; UIKit then shows the wrong order.
    var changes = RelationChangeSet<Item>()
    changes._movedRows = [Move(from: p(0, 0), to: p(0, 3), changed: false)]
    let shown = try BatchUpdateReplayer.replay(
      old: [["a", "b", "c", "d"]], changes: changes, dataSource: [["d", "b", "c", "a"]])
    #expect(shown == [["b", "c", "d", "a"]])
  }

  @Test func replayerRejectsRowChangesInsideDeletedSections() {
    var changes = RelationChangeSet<Item>()
    changes._deletedSections.insert(0)
    changes._deletedRows = [p(0, 0)]
    #expect(throws: BatchUpdateReplayer.Failure.self) {
      try BatchUpdateReplayer.replay(old: [["a"], ["b"]], changes: changes, dataSource: [["b"]])
    }
  }

  @Test func longestIncreasingSubsequence() {
    let keep = _longestIncreasingSubsequence([3, 0, 1, 4, 2, 5])
    #expect(keep == [false, true, true, false, true, true])
    #expect(_longestIncreasingSubsequence([Int]()).isEmpty)
  }

  @Test func touchAfterModifyingTheIndexTraps() async {
    await #expect(processExitsWith: .failure) {
      var index = ItemIndex.items()
      let a = Item("a", sortKey: 1, sequence: 0)
      var builder = _ChangeSetBuilder(before: index)
      index.insert(a)
      builder.touch(a, changedAttributes: false, in: index)
    }
  }
}

extension ChangeSetBuilderTests {
  /// A change set as comparable text: every list, elements by name, moves with their flag.
  static func describe(_ changes: RelationChangeSet<Item>?) -> String {
    guard let changes else { return "nil" }
    let names = { (elements: [Item]) in elements.map(\.name).joined(separator: ",") }
    return [
      "sections -\(Array(changes.deletedSections)) +\(Array(changes.insertedSections))",
      "deleted \(changes.deletedRows) \(names(changes.deletedElements))",
      "inserted \(changes.insertedRows) \(names(changes.insertedElements))",
      "moved \(changes.movedRows) \(names(changes.movedElements))",
      "updated \(changes.updatedRows) \(names(changes.updatedElements))",
      "section elements -\(changes.deletedSectionElements.map(names))"
        + " +\(changes.insertedSectionElements.map(names))",
    ].joined(separator: "; ")
  }

  /// The shortcut for a transaction that touched one element gives the change set the general
  /// path gives, for every kind of single change: a move inside a section or across sections,
  /// a section appearing or disappearing with it, entering or leaving, the permanent section,
  /// an update in place.
  @Test(arguments: [nil, 0] as [Int?])
  func oneTouchedElementGetsTheGeneralChangeSet(permanent: Int?) {
    var rng = SplitMix64(seed: 11 &+ UInt64(permanent ?? 5))
    var index = ItemIndex.items(permanentSection: permanent)
    // Few elements over few sections and keys, so that sections come and go and ties happen.
    let items = (0..<10).map { n in
      Item(
        "i\(n)", sortKey: Int(rng.next() % 5), sectionKey: Int(rng.next() % 4),
        sequence: UInt64(n))
    }
    for item in items where rng.next() % 4 != 0 { index.insert(item) }
    var kinds = Set<String>()
    for _ in 0..<5_000 {
      let item = items[Int(rng.next() % UInt64(items.count))]
      let changed = rng.next() % 3 == 0
      var shortcut = _ChangeSetBuilder(before: index)
      var general = _ChangeSetBuilder(before: index)
      shortcut.touch(item, changedAttributes: changed, in: index)
      general.touch(item, changedAttributes: changed, in: index)
      index.remove(item.id)
      if rng.next() % 2 == 0 { item.sortKey = Int(rng.next() % 5) }
      if rng.next() % 3 == 0 { item.sectionKey = Int(rng.next() % 4) }
      if rng.next() % 5 != 0 { index.insert(item) }
      let fast = shortcut.finish(after: index)
      let slow = general.finish(after: index, oneElementShortcut: false)
      #expect(Self.describe(fast) == Self.describe(slow))
      #expect(shortcut.deletedSectionKeys == general.deletedSectionKeys)
      if let slow {
        if !slow.deletedSections.isEmpty { kinds.insert("section deleted") }
        if !slow.insertedSections.isEmpty { kinds.insert("section inserted") }
        if !slow.movedRows.isEmpty { kinds.insert("moved") }
        if !slow.updatedRows.isEmpty { kinds.insert("updated") }
        if !slow.insertedRows.isEmpty { kinds.insert("inserted") }
        if !slow.deletedRows.isEmpty { kinds.insert("deleted") }
      } else {
        kinds.insert("nothing")
      }
    }
    // The generator reaches every kind of single change.
    #expect(kinds.count == 7, "reached only \(kinds.sorted())")
  }
}

extension ChangeSetBuilderTests {
  /// A change set's section sets (sorted arrays, made into `IndexSet`s on access) hold what an
  /// `IndexSet` would: inserted in any order, with repeats, and empty without allocating one.
  @Test func sectionSetsAgreeWithIndexSet() {
    var rng = SplitMix64(seed: 3)
    for _ in 0..<200 {
      var set = _SectionSet()
      var reference = IndexSet()
      for _ in 0..<Int(rng.next() % 12) {
        let index = Int(rng.next() % 16)
        set.insert(index)
        reference.insert(index)
      }
      #expect(set.indexSet == reference)
      #expect(Array(set) == Array(reference))
      #expect(set.count == reference.count && set.isEmpty == reference.isEmpty)
      for index in 0..<16 { #expect(set.contains(index) == reference.contains(index)) }
    }
    var changes = RelationChangeSet<Item>()
    #expect(changes.deletedSections.isEmpty && changes.isEmpty)
    changes._insertedSections.insert(2)
    changes._insertedSections.insert(0)
    #expect(changes.insertedSections == IndexSet([0, 2]) && !changes.isEmpty)
  }
}

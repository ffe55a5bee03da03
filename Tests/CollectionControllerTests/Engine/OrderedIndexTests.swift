import Foundation
import TestSupport
import Testing

@testable import CollectionController

@Suite struct OrderedIndexTests {}

extension OrderedIndexTests {
  @Test func emptyIndexHasNoSectionsUnlessOneIsPermanent() {
    let plain = ItemIndex.items()
    #expect(plain.sectionCount == 0)
    #expect(plain.isEmpty == true)
    let single = ItemIndex.items(permanentSection: 0)
    #expect(single.sectionCount == 1)
    #expect(single.count(inSection: 0) == 0)
    single._checkInvariants()
  }

  @Test func insertsAtFrontMiddleAndEndKeepSortOrder() {
    var index = ItemIndex.items()
    let b = Item("b", sortKey: 20, sequence: 0)
    let d = Item("d", sortKey: 40, sequence: 1)
    let a = Item("a", sortKey: 10, sequence: 2)
    let c = Item("c", sortKey: 30, sequence: 3)
    let e = Item("e", sortKey: 50, sequence: 4)
    for item in [b, d, a, c, e] {
      index.insert(item)
      index._checkInvariants()
    }
    #expect(index.names == [["a", "b", "c", "d", "e"]])
    #expect(index.count == 5)
    #expect(index.position(of: c.id) == RowPosition(section: 0, row: 2))
    #expect(index.element(atSection: 0, row: 4) === e)
    #expect(index.contains(a.id) == true)
  }

  @Test func tiesKeepSequenceOrder() {
    var index = ItemIndex.items()
    let items = (0..<6).map { Item("i\($0)", sortKey: 7, sequence: UInt64($0)) }
    for item in items.reversed() { index.insert(item) }
    #expect(index.names == [["i0", "i1", "i2", "i3", "i4", "i5"]])
    index.remove(items[2].id)
    index.insert(items[2])
    #expect(index.names == [["i0", "i1", "i2", "i3", "i4", "i5"]])
    index._checkInvariants()
  }

  @Test func removeByIdentityNeedsNoComparison() throws {
    var index = ItemIndex.items()
    let items = (0..<5).map { Item("i\($0)", sortKey: $0, sequence: UInt64($0)) }
    for item in items { index.insert(item) }
    items[1].sortKey = 100  // stale inside the tree: removal must not compare
    let result = index.remove(items[1].id)
    let removed = try #require(result)
    #expect(removed.sectionKey == 0)
    #expect(removed.position == RowPosition(section: 0, row: 1))
    index.insert(items[1])
    #expect(index.names == [["i0", "i2", "i3", "i4", "i1"]])
    #expect(index.remove(Item("x", sortKey: 0, sequence: 9).id) == nil)
    #expect(index.located(Item("y", sortKey: 0, sequence: 9).id) == nil)
    index._checkInvariants()
  }

  @Test func sectionsAppearInKeyOrderAndVanishWhenEmpty() {
    var index = ItemIndex.items()
    let x = Item("x", sortKey: 1, sectionKey: 30, sequence: 0)
    let y = Item("y", sortKey: 1, sectionKey: 10, sequence: 1)
    let z = Item("z", sortKey: 0, sectionKey: 20, sequence: 2)
    let w = Item("w", sortKey: 0, sectionKey: 30, sequence: 3)
    for item in [x, y, z, w] { index.insert(item) }
    #expect(index.sectionKeys == [10, 20, 30])
    #expect(index.names == [["y"], ["z"], ["w", "x"]])
    #expect(index.sectionIndex(for: 20) == 1)
    #expect(index.sectionIndex(for: 25) == nil)
    #expect(index.position(of: x.id) == RowPosition(section: 2, row: 1))
    let removed = index.remove(z.id)
    #expect(removed?.position == RowPosition(section: 1, row: 0))
    #expect(index.sectionKeys == [10, 30])
    #expect(index.position(of: x.id) == RowPosition(section: 1, row: 1))
    index._checkInvariants()
    index.remove(y.id)
    index.remove(x.id)
    index.remove(w.id)
    #expect(index.sectionCount == 0)
    index._checkInvariants()
  }

  @Test func permanentSectionSurvivesEmptying() {
    var index = ItemIndex.items(permanentSection: 0)
    let a = Item("a", sortKey: 1, sequence: 0)
    index.insert(a)
    index.remove(a.id)
    #expect(index.sectionCount == 1)
    #expect(index.sectionKey(at: 0) == 0)
    index._checkInvariants()
  }

  @Test func snapshotListsKeysAndIdentities() {
    var index = ItemIndex.items()
    let a = Item("a", sortKey: 1, sectionKey: 2, sequence: 0)
    let b = Item("b", sortKey: 1, sectionKey: 1, sequence: 1)
    index.insert(a)
    index.insert(b)
    let snapshot = index.snapshot()
    #expect(snapshot.map(\.sectionKey) == [1, 2])
    #expect(snapshot.map(\.identifiers) == [[b.id], [a.id]])
  }

  @Test(arguments: IndexShape.allCases, [1, 2, 3, 4, 5] as [UInt64])
  func randomInsertsAndRemovesMatchASortedArray(shape: IndexShape, seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    var index = ItemIndex.items(shape: shape)
    var live: [Item] = []
    var sequence: UInt64 = 0
    for step in 0..<3_000 {
      if live.isEmpty || Int.random(in: 0..<10, using: &rng) < 6 {
        let item = Item(
          "i\(sequence)", sortKey: Int.random(in: 0..<50, using: &rng),
          sectionKey: Int.random(in: 0..<4, using: &rng), sequence: sequence)
        sequence += 1
        live.append(item)
        index.insert(item)
      } else {
        let item = live.remove(at: Int.random(in: 0..<live.count, using: &rng))
        index.remove(item.id)
      }
      if step % 97 == 0 { index._checkInvariants() }
    }
    let expected = Dictionary(grouping: live, by: \.sectionKey)
      .sorted { $0.key < $1.key }
      .map { group in
        group.value.sorted { ($0.sortKey, $0.sequence) < ($1.sortKey, $1.sequence) }.map(\.name)
      }
    #expect(index.names == expected)
    for item in live {
      let position = index.position(of: item.id)
      #expect(position.map { index.element(at: $0) } === item)
    }
    index._checkInvariants()
  }

  @Test func removeAllKeepsThePermanentSection() {
    var index = ItemIndex.items(permanentSection: 5)
    for i in 0..<10 { index.insert(Item("i\(i)", sortKey: i, sectionKey: 5, sequence: UInt64(i))) }
    index.removeAll()
    #expect(index.count == 0)
    #expect(index.sectionKeys == [5])
    index._checkInvariants()
  }

  /// A bulk load (one sort of the kept keys, a linear build) gives the content that inserting
  /// the elements one by one with a live comparator gives, without a permanent section, with
  /// one that has elements and with one that has none, and leaves a structure that later
  /// inserts and removals keep valid.
  @Test(arguments: IndexShape.allCases, [(1, nil), (2, 2), (3, 9)] as [(UInt64, Int?)])
  func aBulkLoadBuildsWhatInsertionsBuild(shape: IndexShape, case: (seed: UInt64, permanent: Int?))
  {
    let (seed, permanent) = `case`
    var rng = SplitMix64(seed: seed)
    var items: [Item] = (0..<2_000).map { n in
      Item(
        "i\(n)", sortKey: Int.random(in: 0..<40, using: &rng),
        sectionKey: Int.random(in: 0..<6, using: &rng), sequence: UInt64(n) * 7 % 2_003)
    }
    items.shuffle(using: &rng)
    var inserted = ItemIndex.items(permanentSection: permanent, shape: shape)
    var loaded = ItemIndex.items(permanentSection: permanent, shape: shape)
    loaded.keys = _SortKeys.make([SortDescriptor(\Item.sortKey)])
    for item in items { inserted.insert(item) }
    let load = loaded.prepareLoad(
      items, sectionKeys: items.map(\.sectionKey), sequences: items.map(\.sequence))
    loaded.load(load)
    loaded._checkInvariants()
    #expect(loaded.names == inserted.names)
    #expect(loaded.sectionKeys == inserted.sectionKeys)
    #expect(loaded.count == items.count)
    for item in items.prefix(50) {
      #expect(loaded.position(of: item.id) == inserted.position(of: item.id))
      // One lookup finds what the two lookups find.
      let located = loaded.located(item.id)
      #expect(located?.position == loaded.position(of: item.id))
      #expect(located?.element === item)
    }
    // The loaded structure keeps working: the same edits give the same content.
    for step in 0..<600 {
      let item = items[Int.random(in: 0..<items.count, using: &rng)]
      inserted.remove(item.id)
      loaded.remove(item.id)
      item.sortKey = Int.random(in: 0..<40, using: &rng)
      inserted.insert(item)
      loaded.insert(item)
      if step % 100 == 0 { loaded._checkInvariants() }
    }
    #expect(loaded.names == inserted.names)
    loaded._checkInvariants()
  }
}

extension OrderedIndexTests {
  /// Removing many elements at once (a transaction's removals) leaves what removing them one by
  /// one leaves, with the sections they empty removed in one pass: with many small sections,
  /// whole sections, a permanent section emptied (it stays), and identities not in the index.
  @Test(arguments: IndexShape.allCases, [(1, nil), (2, 0), (3, 7)] as [(UInt64, Int?)])
  func removingManyAtOnceMatchesRemovingOneByOne(
    shape: IndexShape, case: (seed: UInt64, permanent: Int?)
  ) {
    let (seed, permanent) = `case`
    var rng = SplitMix64(seed: seed)
    let items: [Item] = (0..<2_000).map { n in
      Item(
        "i\(n)", sortKey: Int.random(in: 0..<30, using: &rng),
        sectionKey: Int.random(in: 0..<300, using: &rng), sequence: UInt64(n))
    }
    var atOnce = ItemIndex.items(permanentSection: permanent, shape: shape)
    var oneByOne = ItemIndex.items(permanentSection: permanent, shape: shape)
    for item in items {
      atOnce.insert(item)
      oneByOne.insert(item)
    }
    // Every element of the even sections (the permanent one among them when it is 0), a
    // random half of the others, and two that were never inserted.
    var removed = items.filter {
      $0.sectionKey.isMultiple(of: 2) || Bool.random(using: &rng)
    }
    removed.shuffle(using: &rng)
    let strangers = [
      Item("x", sortKey: 0, sequence: 9_000), Item("y", sortKey: 0, sequence: 9_001),
    ]
    atOnce.remove(contentsOf: (removed + strangers).map(\.id))
    for item in removed + strangers { oneByOne.remove(item.id) }
    #expect(atOnce.count == items.count - removed.count)
    #expect(atOnce.sectionKeys == oneByOne.sectionKeys)
    #expect(atOnce.names == oneByOne.names)
    #expect(atOnce.sectionKeys.contains { $0.isMultiple(of: 2) && $0 != permanent } == false)
    if let permanent { #expect(atOnce.sectionKeys.contains(permanent)) }
    for item in items where !removed.contains(where: { $0 === item }) {
      #expect(atOnce.position(of: item.id) == oneByOne.position(of: item.id))
    }
    atOnce._checkInvariants()
    // The index stays usable: the emptied sections come back.
    for item in removed.prefix(50) { atOnce.insert(item) }
    atOnce._checkInvariants()
  }
}

extension OrderedIndexTests {
  /// Leaves and nodes split as a section grows (the tree gets taller), merge, unlink and hand the
  /// root down as it shrinks (down to a single leaf), and the storage freed is what later
  /// growth takes again.
  @Test func leavesAndNodesSplitMergeCollapseAndAreReused() {
    var index = ItemIndex.items(shape: .narrow)
    let items = (0..<3_000).map { Item("i\($0)", sortKey: $0, sequence: UInt64($0)) }
    for item in items { index.insert(item) }
    index._checkInvariants()
    let tall = index._sections[0].height
    // Under 4 per leaf and node, 3,000 elements need at least 1,000 leaves and log3 of that.
    #expect(tall >= 6)
    let (leaves, nodes) = (index._leafCounts.count, index._nodeCounts.count)
    // Every 100th stays: leaves empty or merge, nodes go, the root is handed down.
    for item in items where !item.sortKey.isMultiple(of: 100) {
      index.remove(item.id)
      if item.sortKey % 97 == 0 { index._checkInvariants() }
    }
    index._checkInvariants()
    // The emptied leaves and nodes go and the sparse ones merge or even out with a neighbour:
    // 30 elements in leaves under nodes of two children or more.
    #expect(index._sections[0].height <= 4)
    #expect(index.names == [(0..<30).map { "i\($0 * 100)" }])
    for item in items where item.sortKey.isMultiple(of: 100) { index.remove(item.id) }
    #expect(index.sectionCount == 0)
    index._checkInvariants()
    // The same growth again takes the freed leaves and nodes, and no more.
    for item in items { index.insert(item) }
    index._checkInvariants()
    #expect(index._sections[0].height == tall)
    #expect(index._leafCounts.count == leaves)
    #expect(index._nodeCounts.count == nodes)
    // One element left: the root is its leaf.
    for item in items.dropFirst() { index.remove(item.id) }
    #expect(index._sections[0].height == 0)
    #expect(index.element(atSection: 0, row: 0) === items[0])
    index._checkInvariants()
  }
}

extension OrderedIndexTests {
  /// The orders of removal that hollow out a tree.
  enum RemovalOrder: CaseIterable {
    case ascending, descending, middleOut, everyOtherFirst, random
  }

  /// However a bulk-loaded section shrinks, every node keeps two children or more (checked
  /// with the invariants as it shrinks), so the height follows the count: a handful of elements
  /// end up at most two levels above their leaves, not at the height of the thousands there were.
  @Test(arguments: RemovalOrder.allCases)
  func theHeightFollowsTheCountWhateverTheOrderOfRemovals(_ order: RemovalOrder) {
    var rng = SplitMix64(seed: 7)
    var index = ItemIndex.items(shape: .narrow)
    index.keys = _SortKeys.make([SortDescriptor(\Item.sortKey)])
    let items = (0..<2_187).map { Item("i\($0)", sortKey: $0 / 3, sequence: UInt64($0)) }
    index.load(
      index.prepareLoad(
        items, sectionKeys: items.map(\.sectionKey), sequences: items.map(\.sequence)))
    index._checkInvariants()
    let tall = index._sections[0].height
    #expect(tall >= 6)
    var doomed = Array(items.dropFirst(5))
    switch order {
    case .ascending: break
    case .descending: doomed.reverse()
    case .middleOut:
      doomed.sort { abs($0.sortKey - 364) < abs($1.sortKey - 364) }
    case .everyOtherFirst:
      doomed = doomed.enumerated().sorted {
        ($0.offset % 2, $0.offset) < ($1.offset % 2, $1.offset)
      }
      .map(\.element)
    case .random: doomed.shuffle(using: &rng)
    }
    for (step, item) in doomed.enumerated() {
      index.remove(item.id)
      if step % 29 == 0 { index._checkInvariants() }
    }
    index._checkInvariants()
    #expect(index.count == 5)
    #expect(index.names == [(0..<5).map { "i\($0)" }])
    // Five elements: at most five leaves under nodes of two children or more.
    #expect(index._sections[0].height <= 2)
  }
}

extension OrderedIndexTests {
  /// Detached elements (a transaction's moves) are in the index for no lookup; those inserted
  /// again go back into their own slots, new elements inserted meanwhile get others (and grow
  /// the identity table past its detached entries), and `removeDetached()` removes the rest:
  /// the content is what removing and inserting one by one gives.
  @Test(arguments: IndexShape.allCases, [(1, nil), (2, 0)] as [(UInt64, Int?)])
  func detachedElementsGoBackIntoTheirSlotsAndTheRestAreRemoved(
    shape: IndexShape, case: (seed: UInt64, permanent: Int?)
  ) {
    let (seed, permanent) = `case`
    var rng = SplitMix64(seed: seed)
    func randomItem(_ n: Int) -> Item {
      Item(
        "i\(n)", sortKey: Int.random(in: 0..<30, using: &rng),
        sectionKey: Int.random(in: 0..<100, using: &rng), sequence: UInt64(n))
    }
    let items = (0..<1_000).map(randomItem)
    var detaching = ItemIndex.items(permanentSection: permanent, shape: shape)
    var reference = ItemIndex.items(permanentSection: permanent, shape: shape)
    for item in items {
      detaching.insert(item)
      reference.insert(item)
    }
    // Every element of the sections below 10 (so that sections empty), and a random third of
    // the others, in random order.
    var touched = items.filter { $0.sectionKey < 10 || Int.random(in: 0..<3, using: &rng) == 0 }
    touched.shuffle(using: &rng)
    let slots = touched.map { detaching._findSlot($0.id) }
    let stranger = Item("x", sortKey: 0, sequence: 9_000)
    detaching.detach(contentsOf: (touched + [stranger]).map(\.id))
    #expect(detaching.count == items.count - touched.count)
    #expect(detaching.hasDetached == true)
    for item in touched {
      #expect(detaching.contains(item.id) == false)
      #expect(detaching.position(of: item.id) == nil)
      #expect(detaching.located(item.id) == nil)
    }
    #expect(detaching.sectionKeys.allSatisfy { $0 >= 10 || $0 == permanent })
    // Prefetching (what a move asks for ahead) neither traps nor changes the index for any of
    // them, detached, present or a stranger: it reads the table and the records, and indexes
    // arrays only with what it read (a `_find` that found detached slots traps here).
    let before = (0..<detaching.sectionCount).map { detaching.count(inSection: $0) }
    for item in items + [stranger] {
      detaching.prefetchBucket(of: item.id)
      detaching.prefetchRecord(of: item.id)
      detaching.prefetchPlace(of: item.id)
    }
    #expect((0..<detaching.sectionCount).map { detaching.count(inSection: $0) } == before)
    // Half of them move (new keys) and go back; the others are dropped. New elements, more
    // than the table held, go in between.
    let kept = touched.filter { _ in Bool.random(using: &rng) }
    let newcomers = (1_000..<3_000).map(randomItem)
    for item in touched { reference.remove(item.id) }
    // The identity table holds the detached elements too: its load counts them.
    var overloaded = false
    func insert(_ item: Item) {
      detaching.insert(item)
      reference.insert(item)
      let entries = detaching.count + detaching._detachedCount
      overloaded = overloaded || entries * 4 > detaching._table.buckets.count * 3
    }
    for (offset, item) in kept.enumerated() {
      item.sortKey = Int.random(in: 0..<30, using: &rng)
      item.sectionKey = Int.random(in: 0..<100, using: &rng)
      for newcomer in newcomers[(offset * 4)..<(offset * 4 + 4)] { insert(newcomer) }
      insert(item)
    }
    for newcomer in newcomers.dropFirst(kept.count * 4) { insert(newcomer) }
    #expect(overloaded == false)
    #expect(detaching.hasDetached == (kept.count < touched.count))
    detaching.removeDetached()
    #expect(detaching.hasDetached == false)
    detaching._checkInvariants()
    #expect(detaching.count == reference.count)
    #expect(detaching.sectionKeys == reference.sectionKeys)
    #expect(detaching.names == reference.names)
    for (item, slot) in zip(touched, slots) where kept.contains(where: { $0 === item }) {
      #expect(detaching._findSlot(item.id) == slot)
    }
    for item in touched where !kept.contains(where: { $0 === item }) {
      #expect(detaching.contains(item.id) == false)
    }
    // A whole transaction's list of detached slots is not kept for good.
    #expect(detaching._detached.capacity <= 64)
    // The index stays usable: a second round detaches again.
    detaching.detach(contentsOf: kept.map(\.id))
    detaching.removeDetached()
    #expect(detaching.count == reference.count - kept.count)
    detaching._checkInvariants()
    // Elements that all went back, then one removed (its slot freed, the only free one): a
    // later `removeDetached()` frees nothing more.
    var small = ItemIndex.items(shape: shape)
    let (first, second) = (newcomers[0], newcomers[1])
    small.insert(first)
    small.insert(second)
    small.detach(contentsOf: [first.id, second.id])
    small.insert(first)
    small.insert(second)
    small.remove(first.id)
    small.removeDetached()
    #expect(small.contains(second.id) == true)
    #expect(small.count == 1)
    small._checkInvariants()
  }
}

extension OrderedIndexTests {
  /// A transaction finds each element's slot once (`slot(of:)`) and hands it to what places the
  /// element as a hint: any hint gives the answer a lookup gives (its own slot, another
  /// element's, a freed one, a reused one, -1 or out of range), so a stale hint is harmless.
  @Test(arguments: IndexShape.allCases)
  func slotHintsAreCheckedAndGiveWhatALookupGives(shape: IndexShape) {
    var rng = SplitMix64(seed: 7)
    var index = ItemIndex.items(shape: shape)
    let items = (0..<300).map {
      Item(
        "i\($0)", sortKey: Int.random(in: 0..<20, using: &rng),
        sectionKey: Int.random(in: 0..<5, using: &rng), sequence: UInt64($0))
    }
    for item in items { index.insert(item) }
    let slots = items.map { index.slot(of: $0.id) }
    #expect(slots.allSatisfy { $0 >= 0 })
    #expect(Set(slots).count == items.count)
    let stranger = Item("x", sortKey: 0, sequence: 9_000)
    #expect(index.slot(of: stranger.id) == -1)
    func expectHintsAgree(_ item: Item) {
      let truth = index.position(of: item.id)
      for hint in [index.slot(of: item.id), slots[0], slots[1], -1, Int32.max, 9_999] {
        #expect(index.position(of: item.id, hint: hint) == truth)
      }
    }
    for item in items + [stranger] { expectHintsAgree(item) }
    // A removed element's slot is freed (its record holds no identity), then reused by a
    // newcomer: the old hint finds nothing for the removed one, and the newcomer there.
    let removed = items[5]
    index.remove(removed.id)
    #expect(index.position(of: removed.id, hint: slots[5]) == nil)
    let newcomer = Item("n", sortKey: 3, sectionKey: 1, sequence: 5_000)
    index.insert(newcomer)
    #expect(index.slot(of: newcomer.id) == slots[5])
    #expect(index.position(of: removed.id, hint: slots[5]) == nil)
    #expect(index.position(of: newcomer.id, hint: slots[5]) == index.position(of: newcomer.id))
    // Detached with wrong hints (a neighbour's slot in the set, the slot of an element outside
    // it, the newcomer's reused slot, out of range, -1), then placed again with wrong hints:
    // each goes back into its own slot, as without hints, and no element outside the set is
    // detached (a detach that trusted its hints would take items[0] or the newcomer).
    let moved = Array(items[10..<40])
    let wrong = moved.indices.map { offset -> Int32 in
      switch offset % 5 {
      case 0: slots[10 + (offset + 1) % moved.count]
      case 1: slots[0]
      case 2: slots[5]
      case 3: Int32.max
      default: -1
      }
    }
    index.detach(contentsOf: zip(moved.map(\.id), wrong).map { (id: $0, hint: $1) })
    #expect(index.position(of: items[0].id) != nil)
    #expect(index.position(of: newcomer.id) != nil)
    #expect(index.count == items.count - moved.count)
    for (offset, item) in moved.enumerated() {
      #expect(index.position(of: item.id, hint: slots[10 + offset]) == nil)  // detached
      #expect(index.slot(of: item.id) == slots[10 + offset])  // still its slot
      item.sortKey = Int.random(in: 0..<20, using: &rng)
      let point = index.insertionPoint(
        for: item, sectionKey: item.sectionKey, sequence: item.sequence)
      index.insert(item, sequence: item.sequence, at: point, hint: wrong[offset])
      #expect(index.slot(of: item.id) == slots[10 + offset])
    }
    #expect(index.hasDetached == false)
    index._checkInvariants()
    for item in items + [newcomer, stranger] { expectHintsAgree(item) }
  }
}

extension OrderedIndexTests {
  /// A descent hands its prefetch the slots it compares next: in each node and leaf every
  /// comparison but the first compares a slot asked for before it, so a descent that asked for
  /// none, or for others, fails. (Prefetches change no order; this is where they show.)
  @Test(arguments: IndexShape.allCases)
  func aDescentAsksAheadForTheSlotsItComparesNext(shape: IndexShape) {
    var rng = SplitMix64(seed: 11)
    var index = ItemIndex.items(shape: shape)
    let items = (0..<3_000).map {
      Item("i\($0)", sortKey: Int.random(in: 0..<1_000, using: &rng), sequence: UInt64($0))
    }
    for item in items { index.insert(item) }
    let root = index._sections[0]
    let elements = index._elements
    var (comparisons, allowed) = (0, 0)
    for target in stride(from: -1, through: 1_001, by: 7) {
      var asked: Set<Int32> = []
      var unasked = 0
      _ = index._descend(root.root, height: root.height, prefetch: { asked.insert($0) }) {
        slot in
        if !asked.contains(slot) { unasked += 1 }
        comparisons += 1
        // Safe: a descent compares only slots linked into leaves, which hold elements.
        return target < elements[Int(slot)]!.sortKey
      }
      // One comparison per node and leaf on the way down is not asked for ahead: the first.
      #expect(unasked <= Int(root.height) + 1, "target \(target)")
      allowed += Int(root.height) + 1
    }
    // More comparisons than the check allows unasked, so that with no prefetch (every
    // comparison unasked) some target fails it.
    #expect(comparisons > allowed)
  }

  /// A descent asks for the sequences of the slots it may compare next, at the addresses
  /// `_sequenceAddresses` gives: each is where the slot's sequence is (read here through the
  /// slots' own buffer, at the offset from its start that the addresses give), and none is
  /// given past the slots.
  @Test func theSequenceAddressesAreThoseOfTheSlotsSequences() throws {
    var index = ItemIndex.items(shape: .narrow)
    let items = (0..<50).map { Item("i\($0)", sortKey: $0 % 7, sequence: UInt64(1_000 + $0)) }
    for item in items { index.insert(item) }
    let slots = index._slots
    let column = ItemIndex._sequenceAddresses(slots)
    #expect(column.count == slots.count)
    let offsets = items.map { Int(index.slot(of: $0.id)) &* column.stride }
    let sequences = try slots.withUnsafeBufferPointer { buffer in
      let start = try #require(buffer.baseAddress)
      let first = Int(bitPattern: column.base) &- Int(bitPattern: start)
      return offsets.map { (UnsafeRawPointer(start) + first + $0).load(as: UInt64.self) }
    }
    #expect(sequences == items.map(\.sequence))
  }
}

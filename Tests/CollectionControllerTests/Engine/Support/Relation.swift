import Testing

@testable import CollectionController

/// A relation of items feeding an index the way a controller would: members passing the filter,
/// sectioned by `sectionKey`, sorted by `sortKey`, ties by the sequence of entry.
final class Relation {
  private(set) var members: [Item] = []
  private var memberIDs: Set<ObjectIdentifier> = []
  private(set) var index: ItemIndex
  private var nextSequence: UInt64 = 0

  init(permanentSection: Int? = nil) {
    index = .items(permanentSection: permanentSection)
  }

  /// Creates an item that is not yet a member.
  func make(
    _ name: String, _ sortKey: Int, section: Int = 0, passes: Bool = true
  ) -> Item {
    defer { nextSequence += 1 }
    return Item(
      name, sortKey: sortKey, sectionKey: section, passes: passes, sequence: nextSequence)
  }

  /// Adds members without a change set (the initial content).
  func load(_ items: [Item]) {
    for item in items {
      members.append(item)
      memberIDs.insert(item.id)
      if item.passes { index.insert(item) }
    }
  }

  func add(_ item: Item) {
    members.append(item)
    memberIDs.insert(item.id)
  }

  func remove(_ item: Item) {
    members.removeAll { $0 === item }
    memberIDs.remove(item.id)
  }

  /// The content recomputed from scratch: filter, group by section, stable sort.
  var expected: [[Item]] {
    Dictionary(grouping: members.filter(\.passes), by: \.sectionKey)
      .sorted { $0.key < $1.key }
      .map { $0.value.sorted { ($0.sortKey, $0.sequence) < ($1.sortKey, $1.sequence) } }
  }

  /// Runs one transaction over `touched` and checks the change set against the replayer,
  /// `apply(to:)`, `collectionDifference()` and a from-scratch recomputation.
  @discardableResult
  func commit(_ touched: [(Item, Bool)]) throws -> RelationChangeSet<Item>? {
    let old = index.sections
    let ids = memberIDs
    // An element touched twice is touched once, with the changes merged (as the controller's
    // dirty list does; the builder requires it).
    var merged: [(element: Item, changedAttributes: Bool)] = []
    var at: [ObjectIdentifier: Int] = [:]
    for (item, changed) in touched {
      if let i = at[item.id] {
        merged[i].changedAttributes = merged[i].changedAttributes || changed
      } else {
        at[item.id] = merged.count
        merged.append((item, changed))
      }
    }
    let changes = index.applyTransaction(touching: merged) { item in
      ids.contains(item.id) && item.passes ? (item.sectionKey, item.sequence) : nil
    }
    index._checkInvariants()
    var expected = self.expected
    if index.permanentSectionKey != nil && expected.isEmpty { expected = [[]] }
    try Self.verify(
      old: old, changes: changes, new: index.sections, expected: expected, touched: touched)
    return changes
  }

  struct VerificationFailure: Error, CustomStringConvertible {
    var description: String
  }

  private static func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw VerificationFailure(description: message()) }
  }

  /// Throws unless `changes` takes `old` to `expected` under batch-update rules (replayer,
  /// `apply(to:)`, `collectionDifference()`), reports every changed element that stayed, is nil
  /// only when nothing visible changed, and has no removable move.
  static func verify(
    old: [[Item]], changes: RelationChangeSet<Item>?, new: [[Item]], expected: [[Item]],
    touched: [(Item, Bool)], checkMinimality: Bool = true
  ) throws {
    let oldIDs = old.map { $0.map(\.name) }
    let newIDs = new.map { $0.map(\.name) }
    let expectedIDs = expected.map { $0.map(\.name) }
    try check(newIDs == expectedIDs, "index content \(newIDs) != expected \(expectedIDs)")
    let before = Set(old.joined().map(\.id))
    let after = Set(new.joined().map(\.id))
    guard let changes else {
      try check(oldIDs == expectedIDs, "nil change set, but \(oldIDs) -> \(expectedIDs)")
      for (item, changed) in touched
      where changed && before.contains(item.id) && after.contains(item.id) {
        throw VerificationFailure(description: "nil change set hides the update of \(item)")
      }
      return
    }
    try check(!changes.isEmpty, "empty change set delivered")
    let replayed = try BatchUpdateReplayer.replay(
      old: oldIDs, changes: changes, dataSource: expectedIDs)
    try check(replayed == expectedIDs, "replay gives \(replayed), expected \(expectedIDs)")
    var applied = old
    changes.apply(to: &applied)
    try check(applied.map { $0.map(\.name) } == expectedIDs, "apply(to:) disagrees")

    // Every changed element that stayed is reported as updated or as a changed move; elements
    // entering or leaving are never updates.
    let reported = Set(changes.updatedElements.map(\.id))
      .union(zip(changes.movedRows, changes.movedElements).filter(\.0.changed).map(\.1.id))
    let enteredOrLeft = Set(
      (changes.insertedElements + changes.deletedElements
        + changes.insertedSectionElements.joined() + changes.deletedSectionElements.joined())
        .map(\.id))
    for (item, changed) in touched where changed && before.contains(item.id) {
      let stayed = after.contains(item.id) && !enteredOrLeft.contains(item.id)
      try check(reported.contains(item.id) == stayed, "update of \(item) reported: \(!stayed)")
    }
    let touchedIDs = Set(touched.map(\.0.id))
    let mentioned =
      changes.deletedElements + changes.insertedElements + changes.movedElements
      + changes.updatedElements
    try check(mentioned.allSatisfy { touchedIDs.contains($0.id) }, "untouched element mentioned")

    if old.count <= 1 && expected.count <= 1 {
      let difference = try #require(changes.collectionDifference())
      let result = try #require((old.first ?? []).applying(difference))
      try check(result.map(\.name) == (expected.first ?? []).map(\.name), "CollectionDifference")
    }

    // Minimality: no move inside one section can be left unmentioned.
    guard checkMinimality else { return }
    for (i, move) in changes.movedRows.enumerated() {
      var fewer = changes
      fewer._movedRows.remove(at: i)
      fewer._movedElements.remove(at: i)
      if move.changed {
        fewer._updatedRows.append(move.from)
        fewer._updatedElements.append(changes._movedElements[i])
      }
      let replay = try? BatchUpdateReplayer.replay(
        old: oldIDs, changes: fewer, dataSource: expectedIDs)
      try check(replay != expectedIDs, "move \(move) is not needed in \(changes)")
    }
  }
}

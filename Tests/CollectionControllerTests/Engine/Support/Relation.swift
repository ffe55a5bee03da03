import Testing

@testable import CollectionController

/// A relation of items feeding an index the way a controller would: members passing the filter,
/// sectioned by `sectionKey`, sorted by `sortKey`, ties by the sequence of entry.
struct Relation {
  private(set) var members: [Item] = []
  private var memberIDs: Set<ObjectIdentifier> = []
  private(set) var index: ItemIndex
  private var nextSequence: UInt64 = 0

  init(permanentSection: Int? = nil) {
    index = .items(permanentSection: permanentSection)
  }

  /// Creates an item that is not yet a member.
  mutating func make(
    _ name: String, _ sortKey: Int, section: Int = 0, passes: Bool = true
  ) -> Item {
    defer { nextSequence += 1 }
    return Item(
      name, sortKey: sortKey, sectionKey: section, passes: passes, sequence: nextSequence)
  }

  /// Adds members without a change set (the initial content).
  mutating func load(_ items: [Item]) {
    for item in items {
      members.append(item)
      memberIDs.insert(item.id)
      if item.passes { index.insert(item) }
    }
  }

  mutating func add(_ item: Item) {
    members.append(item)
    memberIDs.insert(item.id)
  }

  mutating func remove(_ item: Item) {
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
  mutating func commit(
    _ touched: [(Item, Bool)], sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> ChangeSet<Item>? {
    let old = index.sections
    let ids = memberIDs
    let changes = index.applyTransaction(touching: touched.map { ($0.0, $0.1) }) { item in
      ids.contains(item.id) && item.passes ? (item.sectionKey, item.sequence) : nil
    }
    index._checkInvariants()
    var expected = self.expected
    if index.permanentSectionKey != nil && expected.isEmpty { expected = [[]] }
    try Self.verify(
      old: old, changes: changes, new: index.sections, expected: expected,
      touched: touched, sourceLocation: sourceLocation)
    return changes
  }

  static func verify(
    old: [[Item]], changes: ChangeSet<Item>?, new: [[Item]], expected: [[Item]],
    touched: [(Item, Bool)], sourceLocation: SourceLocation
  ) throws {
    let oldIDs = old.map { $0.map(\.id) }
    let newIDs = new.map { $0.map(\.id) }
    let expectedIDs = expected.map { $0.map(\.id) }
    #expect(newIDs == expectedIDs, "index content", sourceLocation: sourceLocation)
    guard let changes else {
      #expect(oldIDs == expectedIDs, "nil but changed", sourceLocation: sourceLocation)
      let before = Set(oldIDs.joined())
      let after = Set(newIDs.joined())
      for (item, changed) in touched
      where changed && before.contains(item.id) && after.contains(item.id) {
        Issue.record("nil change set hides the update of \(item)", sourceLocation: sourceLocation)
      }
      return
    }
    #expect(!changes.isEmpty, "empty change set delivered", sourceLocation: sourceLocation)
    let replayed = try BatchUpdateReplayer.replay(
      old: oldIDs, changes: changes, dataSource: expectedIDs)
    #expect(replayed == expectedIDs, "replay of \(changes)", sourceLocation: sourceLocation)
    var applied = old
    changes.apply(to: &applied)
    #expect(applied.map { $0.map(\.id) } == expectedIDs, "apply", sourceLocation: sourceLocation)
    // Every changed element still present is reported as updated or moved-and-changed.
    let changedIDs = Set(touched.filter(\.1).map(\.0.id))
    let oldIDSet = Set(oldIDs.joined())
    let newIDSet = Set(expectedIDs.joined())
    let reported = Set(changes.updatedElements.map(\.id))
      .union(zip(changes.movedRows, changes.movedElements).filter(\.0.changed).map(\.1.id))
    let entering = Set(changes.insertedElements.map(\.id))
      .union(changes.insertedSectionElements.joined().map(\.id))
    let leaving = Set(changes.deletedElements.map(\.id))
      .union(changes.deletedSectionElements.joined().map(\.id))
    for id in changedIDs where oldIDSet.contains(id) && newIDSet.contains(id) {
      if !reported.contains(id) && !entering.contains(id) && !leaving.contains(id) {
        Issue.record("a changed element is not reported", sourceLocation: sourceLocation)
      }
    }
    #expect(reported.isDisjoint(with: entering.union(leaving)), sourceLocation: sourceLocation)
    if old.count <= 1 && expected.count <= 1 {
      let difference = try #require(changes.collectionDifference(), sourceLocation: sourceLocation)
      let flatOld = old.first ?? []
      let result = try #require(flatOld.applying(difference), sourceLocation: sourceLocation)
      #expect(result.map(\.id) == (expected.first ?? []).map(\.id), sourceLocation: sourceLocation)
    }
  }
}

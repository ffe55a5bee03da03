@testable import CollectionController

/// Counts of what randomized tests' change sets contained, so that a run can check that it
/// exercised every kind of change.
@dynamicMemberLookup
struct ChangeTally: CustomStringConvertible {
  struct Counts {
    var changeSets = 0
    var empty = 0
    var sectionInserts = 0
    var sectionDeletes = 0
    var inserts = 0
    var deletes = 0
    var moves = 0
    var changedMoves = 0
    var updates = 0
  }

  private(set) var counts = Counts()

  subscript(dynamicMember keyPath: KeyPath<Counts, Int>) -> Int { counts[keyPath: keyPath] }

  /// Counts one change set (`nil`: a transaction that changed nothing visible).
  mutating func add<Element>(_ changes: RelationChangeSet<Element>?) {
    guard let changes else {
      counts.empty += 1
      return
    }
    counts.changeSets += 1
    counts.sectionInserts += changes.insertedSections.count
    counts.sectionDeletes += changes.deletedSections.count
    counts.inserts += changes.insertedRows.count
    counts.deletes += changes.deletedRows.count
    counts.moves += changes.movedRows.count
    counts.changedMoves += changes.movedRows.filter { $0.changed }.count
    counts.updates += changes.updatedRows.count
  }

  var description: String {
    "\(counts.changeSets) change sets, \(counts.empty) empty (sections +\(counts.sectionInserts) "
      + "-\(counts.sectionDeletes); rows +\(counts.inserts) -\(counts.deletes), moves "
      + "\(counts.moves) (\(counts.changedMoves) changed), updates \(counts.updates))"
  }
}

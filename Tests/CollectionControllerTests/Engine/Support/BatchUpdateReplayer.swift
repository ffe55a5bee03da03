@testable import CollectionController

/// Replays a change set the way UITableView's `performBatchUpdates` does, written from UIKit's
/// documented rules and independent of `ChangeSet.apply(to:)`.
///
/// It validates the batch first (as UIKit raises `NSInternalInconsistencyException`), then builds
/// the new content from old cells and the data source's cells:
/// 1. delete sections and rows (deletions, move sources) at old positions;
/// 2. keep the remaining rows of each surviving section (unmentioned and reloaded) in old order;
/// 3. place inserted sections, inserted rows and move destinations at new positions;
/// 4. fill each section's remaining slots with its kept rows, in order.
///
/// Moved, kept and reloaded cells carry their old identity and inserted cells come from the data
/// source, so comparing the result with the data source checks where every old cell ended up.
enum BatchUpdateReplayer {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  static func replay<ID: Hashable, E>(
    old: [[ID]], changes: RelationChangeSet<E>, dataSource new: [[ID]]
  ) throws -> [[ID]] {
    func fail(_ message: String) -> Failure {
      Failure(description: "\(message) in \(changes)")
    }
    let deletedSections = Set(changes.deletedSections)
    let insertedSections = Set(changes.insertedSections)
    for section in deletedSections where !(0..<old.count).contains(section) {
      throw fail("deleted section \(section) out of range 0..<\(old.count)")
    }
    for section in insertedSections where !(0..<new.count).contains(section) {
      throw fail("inserted section \(section) out of range 0..<\(new.count)")
    }
    guard old.count - deletedSections.count + insertedSections.count == new.count else {
      throw fail("section count: \(old.count) - deleted + inserted != \(new.count)")
    }

    // Old side: deletions, move sources and reloads, each once, in range, in surviving sections.
    var oldSide: Set<RowPosition> = []
    let oldPositions =
      changes.deletedRows + changes.movedRows.map(\.from) + changes.updatedRows
    for position in oldPositions {
      guard oldSide.insert(position).inserted else {
        throw fail("old position \(position) named twice")
      }
      guard (0..<old.count).contains(position.section),
        (0..<old[position.section].count).contains(position.row)
      else { throw fail("old position \(position) out of range") }
      guard !deletedSections.contains(position.section) else {
        throw fail("row change \(position) inside deleted section")
      }
    }
    // New side: insertions and move destinations, each once, in range, in surviving sections.
    var newSide: Set<RowPosition> = []
    for position in changes.insertedRows + changes.movedRows.map(\.to) {
      guard newSide.insert(position).inserted else {
        throw fail("new position \(position) named twice")
      }
      guard (0..<new.count).contains(position.section),
        (0..<new[position.section].count).contains(position.row)
      else { throw fail("new position \(position) out of range") }
      guard !insertedSections.contains(position.section) else {
        throw fail("row change \(position) inside inserted section")
      }
    }

    // Surviving sections, old index to new index, in order.
    let survivingOld = (0..<old.count).filter { !deletedSections.contains($0) }
    let survivingNew = (0..<new.count).filter { !insertedSections.contains($0) }
    var newSectionOfOld: [Int: Int] = [:]
    for (o, n) in zip(survivingOld, survivingNew) { newSectionOfOld[o] = n }

    // Row counts per surviving section.
    for (o, n) in zip(survivingOld, survivingNew) {
      let deletes = changes.deletedRows.filter { $0.section == o }.count
      let movesOut = changes.movedRows.filter { $0.from.section == o }.count
      let inserts = changes.insertedRows.filter { $0.section == n }.count
      let movesIn = changes.movedRows.filter { $0.to.section == n }.count
      let expected = old[o].count - deletes - movesOut + inserts + movesIn
      guard expected == new[n].count else {
        throw fail(
          "section \(o)->\(n): \(old[o].count) - \(deletes) - \(movesOut) + \(inserts) "
            + "+ \(movesIn) = \(expected), data source has \(new[n].count)")
      }
    }

    // Build.
    let removed = Set(changes.deletedRows + changes.movedRows.map(\.from))
    let reloaded = Set(changes.updatedRows)
    var result: [[ID?]] = new.map { Array(repeating: nil, count: $0.count) }
    for section in insertedSections {
      result[section] = new[section].map { $0 }
    }
    for position in changes.insertedRows {
      result[position.section][position.row] = new[position.section][position.row]
    }
    for move in changes.movedRows {
      result[move.to.section][move.to.row] = old[move.from.section][move.from.row]
    }
    for o in survivingOld {
      // Safe: every surviving old section has a surviving new counterpart.
      let n = newSectionOfOld[o]!
      var kept: [(row: Int, id: ID)] = []
      for (row, id) in old[o].enumerated()
      where !removed.contains(RowPosition(section: o, row: row)) {
        kept.append((row, id))
      }
      var next = 0
      for slot in result[n].indices where result[n][slot] == nil {
        guard next < kept.count else { throw fail("section \(n) has an unfilled slot") }
        let (row, id) = kept[next]
        // A reloaded row is configured again for the object the data source has at its slot:
        // that must be the object it showed, or the table now shows a different object there.
        if reloaded.contains(RowPosition(section: o, row: row)) && new[n][slot] != id {
          throw fail("reloaded row \(RowPosition(section: o, row: row)) lands on another object")
        }
        result[n][slot] = id
        next += 1
      }
      guard next == kept.count else { throw fail("section \(n) overflows") }
    }
    return try result.map { section in
      try section.map { id in
        guard let id else { throw fail("unfilled slot") }
        return id
      }
    }
  }
}

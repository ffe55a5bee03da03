import CollectionController
import Foundation

// Stand-ins for the part of UIKit that the documentation's table view examples use, spelled as
// UIKit spells it, so that those examples compile here unchanged (Linux has no UIKit). The
// table view is a model of UITableView's batch updates, written from UIKit's rules and
// independent of `RelationChangeSet`: it keeps the cells it shows, applies the calls a batch
// records the way UITableView does, and records what UIKit would raise
// `NSInternalInconsistencyException` for in `failures` instead of crashing. Comparing what it
// shows with what the data source gives now checks where every old cell ended up and that no
// cell shows stale content. The examples are in TableViewExamplesTests.swift.
//
// The rules it applies (UIKit's, from its documentation and its exception messages):
// - Within a batch (`performBatchUpdates`, or `beginUpdates` ... `endUpdates`), deletions and
//   reloads of sections and rows, and the sources of moves, name old positions; insertions and
//   the destinations of moves name new positions; the order of the calls does not matter.
// - The number of sections after the batch (the data source's) is the number before, minus the
//   deleted ones, plus the inserted ones; in each section there before and after, the number of
//   rows is the number before, minus deletions and moves out, plus insertions and moves in.
// - An inserted section reads its header and all its rows from the data source: nothing else
//   names rows inside it. A deleted section takes its rows with it.
// - A moved row keeps its cell as it was (UIKit does not ask the data source again); a reloaded
//   or inserted row gets a new cell from the data source; every other row keeps its cell and
//   its relative order, and fills the slots of its section that insertions and moves leave free.
// - No position is named twice on either side (a row deleted and reloaded, moved twice, ...).
// It is stricter than UIKit in one place: a row change inside an inserted or deleted section is
// a failure here (UIKit's versions treat it differently; a change set never names one).

/// How a change is animated (ignored here).
extension UITableView {
  enum RowAnimation { case automatic, fade, none }
}

/// What a cell shows (UIKit's `UIContentConfiguration`).
protocol UIContentConfiguration {}

/// The list cell's content: a text (UIKit's `UIListContentConfiguration`, reduced).
struct UIListContentConfiguration: UIContentConfiguration, Equatable {
  var text: String?
  var secondaryText: String?
}

/// A cell: what it shows is its content configuration.
@MainActor
class UITableViewCell {
  var contentConfiguration: (any UIContentConfiguration)?

  required init() {}

  func defaultContentConfiguration() -> UIListContentConfiguration {
    UIListContentConfiguration()
  }

  /// The text the cell shows (`nil` if it was never configured).
  var shownText: String? { (contentConfiguration as? UIListContentConfiguration)?.text }
}

/// UIKit's table view data source: the table asks it for its sections, rows, headers and cells.
@MainActor
protocol UITableViewDataSource: NSObjectProtocol {
  func numberOfSections(in tableView: UITableView) -> Int
  func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int
  func tableView(_ tableView: UITableView, titleForHeaderInSection section: Int) -> String?
  func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell
}

extension UITableViewDataSource {
  // UIKit's optional requirements, with UIKit's defaults.
  func numberOfSections(in tableView: UITableView) -> Int { 1 }
  func tableView(_ tableView: UITableView, titleForHeaderInSection section: Int) -> String? {
    nil
  }
}

/// A model of UITableView: the sections it shows, and batch updates applied with UIKit's rules.
@MainActor
final class UITableView {
  /// A section as the table shows it.
  struct ShownSection {
    var header: String?
    var cells: [UITableViewCell]
  }

  /// Held weakly, as UIKit holds it.
  weak var dataSource: (any UITableViewDataSource)?
  /// What the table shows (empty until it loads).
  private(set) var shown: [ShownSection] = []
  /// What UIKit would have raised an exception for (or what the model does not cover).
  private(set) var failures: [String] = []
  /// The number of batches applied.
  private(set) var batchCount = 0
  private var loaded = false
  private var registered: [String: UITableViewCell.Type] = [:]
  private var batch: Batch?
  private var batchDepth = 0

  /// The calls of one batch.
  private struct Batch {
    var deletedSections: [Int] = []
    var insertedSections: [Int] = []
    var deletedRows: [RowPosition] = []
    var insertedRows: [RowPosition] = []
    var reloadedRows: [RowPosition] = []
    var moves: [(from: RowPosition, to: RowPosition)] = []
  }

  init() {}

  // MARK: Cells

  func register(_ cellClass: UITableViewCell.Type, forCellReuseIdentifier identifier: String) {
    registered[identifier] = cellClass
  }

  func dequeueReusableCell(
    withIdentifier identifier: String, for indexPath: IndexPath
  ) -> UITableViewCell {
    guard let type = registered[identifier] else {
      fail("unable to dequeue a cell with identifier \(identifier): register it first")
      return UITableViewCell()
    }
    return type.init()
  }

  // MARK: Loading

  /// Loads the content if the table has not yet (UIKit does it on its first layout).
  func layoutIfNeeded() {
    if !loaded { reloadData() }
  }

  /// Reads everything from the data source again.
  func reloadData() {
    loaded = true
    shown = (0..<sectionCount()).map(readSection)
  }

  // MARK: Batches

  func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)? = nil) {
    beginUpdates()
    updates?()
    endUpdates()
    completion?(true)
  }

  func beginUpdates() {
    if batchDepth == 0 {
      if !loaded { fail("a batch began before the table loaded its content") }
      batch = Batch()
    }
    batchDepth += 1
  }

  func endUpdates() {
    guard batchDepth > 0 else { return fail("endUpdates without beginUpdates") }
    batchDepth -= 1
    if batchDepth == 0, let batch = batch.take() { apply(batch) }
  }

  func deleteSections(_ sections: IndexSet, with animation: RowAnimation) {
    inBatch("deleteSections") { $0.deletedSections += sections }
  }

  func insertSections(_ sections: IndexSet, with animation: RowAnimation) {
    inBatch("insertSections") { $0.insertedSections += sections }
  }

  func deleteRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
    inBatch("deleteRows") { $0.deletedRows += indexPaths.map(RowPosition.init) }
  }

  func insertRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
    inBatch("insertRows") { $0.insertedRows += indexPaths.map(RowPosition.init) }
  }

  func moveRow(at indexPath: IndexPath, to newIndexPath: IndexPath) {
    inBatch("moveRow") { $0.moves.append((RowPosition(indexPath), RowPosition(newIndexPath))) }
  }

  /// In a batch, at old positions; outside one, at current positions.
  func reloadRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
    if batch != nil {
      batch?.reloadedRows += indexPaths.map(RowPosition.init)
    } else {
      refreshRows(at: indexPaths, "reloadRows")
    }
  }

  /// Configures the cells at `indexPaths` again (outside a batch, current positions).
  func reconfigureRows(at indexPaths: [IndexPath]) {
    guard batch == nil else { return fail("reconfigureRows inside a batch is not modelled") }
    refreshRows(at: indexPaths, "reconfigureRows")
  }

  /// Outside a batch: reads the sections' headers and rows again (their row counts must not
  /// have changed).
  func reloadSections(_ sections: IndexSet, with animation: RowAnimation) {
    guard batch == nil else { return fail("reloadSections inside a batch is not modelled") }
    for section in sections {
      guard shown.indices.contains(section) else {
        return fail("reloadSections: section \(section) out of range 0..<\(shown.count)")
      }
      let read = readSection(section)
      guard read.cells.count == shown[section].cells.count else {
        return fail(
          "reloadSections: section \(section) had \(shown[section].cells.count) rows and its "
            + "reload has \(read.cells.count): the row counts changed outside a batch")
      }
      shown[section] = read
    }
  }

  // MARK: Internal

  private func fail(_ message: String) {
    failures.append(message)
  }

  private func inBatch(_ call: String, _ record: (inout Batch) -> Void) {
    guard batch != nil else {
      return fail("\(call) outside a batch is not modelled (wrap it in performBatchUpdates)")
    }
    record(&batch!)  // checked above
  }

  private func sectionCount() -> Int {
    guard let dataSource else { return 0 }
    return dataSource.numberOfSections(in: self)
  }

  private func rowCount(_ section: Int) -> Int {
    dataSource?.tableView(self, numberOfRowsInSection: section) ?? 0
  }

  private func cell(at position: RowPosition) -> UITableViewCell {
    guard let dataSource else { return UITableViewCell() }
    return dataSource.tableView(self, cellForRowAt: IndexPath(position))
  }

  private func readSection(_ section: Int) -> ShownSection {
    ShownSection(
      header: dataSource?.tableView(self, titleForHeaderInSection: section),
      cells: (0..<rowCount(section)).map { cell(at: RowPosition(section: section, row: $0)) })
  }

  private func refreshRows(at indexPaths: [IndexPath], _ call: String) {
    for position in indexPaths.map(RowPosition.init) {
      guard shown.indices.contains(position.section),
        shown[position.section].cells.indices.contains(position.row)
      else { return fail("\(call): \(position) out of range") }
      shown[position.section].cells[position.row] = cell(at: position)
    }
  }

  /// Applies a batch with UIKit's rules, or records why UIKit would raise.
  private func apply(_ batch: Batch) {
    batchCount += 1
    let failuresBefore = failures.count
    let old = shown
    let newCount = sectionCount()

    // Sections.
    let deleted = Set(batch.deletedSections)
    let inserted = Set(batch.insertedSections)
    if deleted.count != batch.deletedSections.count { fail("a section is deleted twice") }
    if inserted.count != batch.insertedSections.count { fail("a section is inserted twice") }
    for section in deleted where !old.indices.contains(section) {
      fail("attempt to delete section \(section), but there are only \(old.count) sections")
    }
    for section in inserted where !(0..<newCount).contains(section) {
      fail("attempt to insert section \(section), but there are only \(newCount) sections after")
    }
    guard old.count - deleted.count + inserted.count == newCount else {
      return fail(
        "Invalid update: invalid number of sections. The number of sections after the update "
          + "(\(newCount)) must be equal to the number before the update (\(old.count)), plus "
          + "or minus the number of sections inserted or deleted (\(inserted.count) inserted, "
          + "\(deleted.count) deleted).")
    }
    let survivingOld = old.indices.filter { !deleted.contains($0) }
    let survivingNew = (0..<newCount).filter { !inserted.contains($0) }
    let newRowCounts = (0..<newCount).map(rowCount)

    // Rows: old positions (deletions, reloads, move sources), new positions (insertions, move
    // destinations).
    var oldSide: Set<RowPosition> = []
    for position in batch.deletedRows + batch.reloadedRows + batch.moves.map(\.from) {
      if !oldSide.insert(position).inserted {
        fail("attempt to delete, reload or move the row at \(position) more than once")
      }
      if deleted.contains(position.section) {
        fail("a row change at \(position) inside deleted section \(position.section)")
      } else if !old.indices.contains(position.section)
        || !old[position.section].cells.indices.contains(position.row)
      {
        fail("attempt to delete, reload or move row \(position), which does not exist before")
      }
    }
    var newSide: Set<RowPosition> = []
    for position in batch.insertedRows + batch.moves.map(\.to) {
      if !newSide.insert(position).inserted {
        fail("attempt to insert or move a row to \(position) more than once")
      }
      if inserted.contains(position.section) {
        fail("a row change at \(position) inside inserted section \(position.section)")
      } else if !(0..<newCount).contains(position.section)
        || !(0..<newRowCounts[position.section]).contains(position.row)
      {
        fail("attempt to insert or move a row to \(position), which does not exist after")
      }
    }
    for (o, n) in zip(survivingOld, survivingNew) {
      let deletions = batch.deletedRows.filter { $0.section == o }.count
      let movesOut = batch.moves.filter { $0.from.section == o }.count
      let insertions = batch.insertedRows.filter { $0.section == n }.count
      let movesIn = batch.moves.filter { $0.to.section == n }.count
      if old[o].cells.count - deletions - movesOut + insertions + movesIn != newRowCounts[n] {
        fail(
          "Invalid update: invalid number of rows in section \(n). The number of rows contained "
            + "in an existing section after the update (\(newRowCounts[n])) must be equal to "
            + "the number of rows contained in that section before the update "
            + "(\(old[o].cells.count)), plus or minus the number of rows inserted or deleted "
            + "from that section (\(insertions) inserted, \(deletions) deleted) and plus or "
            + "minus the number of rows moved into or out of that section (\(movesIn) moved "
            + "in, \(movesOut) moved out).")
      }
    }
    guard failures.count == failuresBefore else { return }

    // Build what the table shows after the batch.
    var result: [ShownSection?] = Array(repeating: nil, count: newCount)
    for section in inserted {
      result[section] = readSection(section)  // the inserted section's rows, from the source
    }
    let removed = Set(batch.deletedRows + batch.moves.map(\.from))
    let reloaded = Set(batch.reloadedRows)
    for (o, n) in zip(survivingOld, survivingNew) {
      var cells: [UITableViewCell?] = Array(repeating: nil, count: newRowCounts[n])
      for position in batch.insertedRows where position.section == n {
        cells[position.row] = cell(at: position)
      }
      for move in batch.moves where move.to.section == n {
        cells[move.to.row] = old[move.from.section].cells[move.from.row]  // the cell as it was
      }
      let kept = old[o].cells.indices.filter { !removed.contains(RowPosition(section: o, row: $0)) }
      var next = kept.makeIterator()
      for slot in cells.indices where cells[slot] == nil {
        // Safe: the counts were checked, so there are as many kept rows as free slots.
        let row = next.next()!
        cells[slot] =
          reloaded.contains(RowPosition(section: o, row: row))
          ? cell(at: RowPosition(section: n, row: slot)) : old[o].cells[row]
      }
      // Safe: every slot was filled above.
      result[n] = ShownSection(header: old[o].header, cells: cells.map { $0! })
    }
    // Safe: every section is inserted or surviving.
    shown = result.map { $0! }
  }
}

extension UITableView {
  /// What the table shows: each section's header and its cells' texts.
  var shownContent: [ShownContent] {
    shown.map { ShownContent(header: $0.header, rows: $0.cells.map(\.shownText)) }
  }

  /// What the table would show if it read everything from its data source now.
  var currentContent: [ShownContent] {
    let saved = (shown, loaded)
    reloadData()
    defer { (shown, loaded) = saved }
    return shownContent
  }

  /// One section's header and rows, as text.
  struct ShownContent: Equatable, CustomStringConvertible {
    var header: String?
    var rows: [String?]
    var description: String {
      "\(header ?? "-"): \(rows.map { $0 ?? "nil" }.joined(separator: " "))"
    }
  }
}

// MARK: - Diffable data sources

/// A snapshot of a diffable data source (UIKit's `NSDiffableDataSourceSnapshot`): section and
/// item identifiers, and the items and sections to configure again. What UIKit traps on
/// (duplicate identifiers, unknown ones) is recorded in `failures`.
struct NSDiffableDataSourceSnapshot<
  SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable
> {
  private(set) var sectionIdentifiers: [SectionIdentifierType] = []
  private(set) var itemsBySection: [[ItemIdentifierType]] = []
  private(set) var reconfiguredItems: Set<ItemIdentifierType> = []
  private(set) var reloadedSections: Set<SectionIdentifierType> = []
  private(set) var failures: [String] = []

  init() {}

  var numberOfItems: Int { itemsBySection.reduce(0) { $0 + $1.count } }

  func itemIdentifiers(inSection identifier: SectionIdentifierType) -> [ItemIdentifierType] {
    sectionIdentifiers.firstIndex(of: identifier).map { itemsBySection[$0] } ?? []
  }

  mutating func appendSections(_ identifiers: [SectionIdentifierType]) {
    for identifier in identifiers {
      if sectionIdentifiers.contains(identifier) {
        failures.append("section identifier \(identifier) appended twice")
      }
      sectionIdentifiers.append(identifier)
      itemsBySection.append([])
    }
  }

  mutating func appendItems(
    _ identifiers: [ItemIdentifierType], toSection section: SectionIdentifierType? = nil
  ) {
    let index =
      section.flatMap { sectionIdentifiers.firstIndex(of: $0) }
      ?? (section == nil ? sectionIdentifiers.indices.last : nil)
    guard let index else { return failures.append("appendItems: no such section") }
    let existing = Set(itemsBySection.joined())
    if existing.count + Set(identifiers).count != existing.union(identifiers).count
      || Set(identifiers).count != identifiers.count
    {
      failures.append("appendItems: item identifiers are not unique")
    }
    itemsBySection[index] += identifiers
  }

  mutating func reconfigureItems(_ identifiers: [ItemIdentifierType]) {
    let existing = Set(itemsBySection.joined())
    for identifier in identifiers where !existing.contains(identifier) {
      failures.append("reconfigureItems: item \(identifier) is not in the snapshot")
    }
    reconfiguredItems.formUnion(identifiers)
  }

  mutating func reloadSections(_ identifiers: [SectionIdentifierType]) {
    for identifier in identifiers where !sectionIdentifiers.contains(identifier) {
      failures.append("reloadSections: section \(identifier) is not in the snapshot")
    }
    reloadedSections.formUnion(identifiers)
  }
}

/// A diffable data source (UIKit's `UITableViewDiffableDataSource`): it is the table's data
/// source, and applying a snapshot updates the table with the difference from the last one. A
/// cell stays as it was unless its item is new, reconfigured, or in a reloaded section (then the
/// cell provider configures it). It shows no headers.
@MainActor
final class UITableViewDiffableDataSource<
  SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable
>: NSObject, UITableViewDataSource {
  typealias CellProvider = (UITableView, IndexPath, ItemIdentifierType) -> UITableViewCell?
  typealias Snapshot = NSDiffableDataSourceSnapshot<SectionIdentifierType, ItemIdentifierType>

  private let tableView: UITableView
  private let cellProvider: CellProvider
  private var current = Snapshot()

  init(tableView: UITableView, cellProvider: @escaping CellProvider) {
    self.tableView = tableView
    self.cellProvider = cellProvider
    super.init()
    tableView.dataSource = self
  }

  func snapshot() -> Snapshot { current }

  func apply(
    _ snapshot: Snapshot, animatingDifferences: Bool = true, completion: (() -> Void)? = nil
  ) {
    let old = current
    // The old cells by item, as the table shows them.
    var cells: [ItemIdentifierType: UITableViewCell] = [:]
    for (section, items) in old.itemsBySection.enumerated() where section < tableView.shown.count {
      for (row, item) in items.enumerated() where row < tableView.shown[section].cells.count {
        cells[item] = tableView.shown[section].cells[row]
      }
    }
    current = snapshot
    tableView._diffableApply(
      snapshot.failures,
      sections: snapshot.sectionIdentifiers.enumerated().map { section, identifier in
        snapshot.itemsBySection[section].enumerated().map { row, item in
          if let cell = cells[item], !snapshot.reconfiguredItems.contains(item),
            !snapshot.reloadedSections.contains(identifier)
          {
            return cell
          }
          return self.tableView(
            tableView, cellForRowAt: IndexPath(RowPosition(section: section, row: row)))
        }
      })
    completion?()
  }

  func numberOfSections(in tableView: UITableView) -> Int { current.sectionIdentifiers.count }

  func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {
    current.itemsBySection[section].count
  }

  func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
    let position = RowPosition(indexPath)
    let item = current.itemsBySection[position.section][position.row]
    guard let cell = cellProvider(tableView, indexPath, item) else {
      tableView._diffableApply(["the cell provider returned nil at \(position)"], sections: nil)
      return UITableViewCell()
    }
    return cell
  }
}

extension UITableView {
  /// What a diffable data source's apply does to the table: shows `sections` (if given) and
  /// records `failures`.
  func _diffableApply(_ failures: [String], sections: [[UITableViewCell]]?) {
    for failure in failures { fail(failure) }
    if let sections {
      batchCount += 1
      loaded = true
      shown = sections.map { ShownSection(header: nil, cells: $0) }
    }
  }
}

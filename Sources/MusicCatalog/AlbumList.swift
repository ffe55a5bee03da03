import Binding
import CollectionController

/// A screen that lists albums through a relation controller, like the table view controllers of
/// MZRelationalCollectionController's example app: it subscribes to the controller's change
/// sets and applies each one to its table, as a UITableView data source would in
/// `performBatchUpdates`.
///
/// After each change set it checks that the table it updated shows what the controller shows,
/// so a change set that did not fit would be reported rather than drawn.
final class AlbumList<SectionKey: Hashable & Comparable> {
  let name: String
  let controller: RelationController<Album, SectionKey>
  private(set) var table: TerminalTable
  /// Each change set that arrived since the last `takeChanges()`, as lines to print.
  private var arrived: [[String]] = []
  /// Differences between the table and the controller found after applying a change set.
  private var mismatches: [String] = []
  private(set) var changeSetCount = 0
  /// Whether the list was drawn (its first content is read, not reported).
  private(set) var wasDrawn = false
  private var subscription: ObservationToken?

  init(_ name: String, _ controller: RelationController<Album, SectionKey>) {
    self.name = name
    self.controller = controller
    let sections = controller.sections
    table = TerminalTable(
      headers: sections.map(\.name), rows: sections.map { $0.objects.map(Row.init) })
    subscription = controller.onChange { [weak self] changes in self?.apply(changes) }
  }

  deinit { subscription?.cancel() }

  private func apply(_ changes: RelationChangeSet<Album>) {
    changeSetCount += 1
    // Inside the handler the controller's content is that of this change set.
    let sections = controller.sections
    let headers = sections.map(\.name)
    arrived.append(describe(changes, before: table, headersAfter: headers))
    table.apply(changes, headers: headers)
    let expected = sections.map { $0.objects.map(Row.init) }
    if table.rows != expected {
      mismatches.append(
        "\(name): after \(changes) the table shows \(table.rows), the controller \(expected)")
    }
  }

  /// The change sets that arrived since the last call, described, and forgets them.
  func takeChanges() -> [[String]] {
    defer { arrived = [] }
    return arrived
  }

  /// The mismatches found since the last call, and forgets them.
  func takeMismatches() -> [String] {
    defer { mismatches = [] }
    return mismatches
  }

  /// The list as drawn now; the marks of the last change set are cleared afterwards.
  func draw() -> [String] {
    wasDrawn = true
    defer { table.clearMarks() }
    return table.draw()
  }
}

/// Describes `changes` in the order a table view applies them: section deletions and
/// insertions, then row deletions (old positions), insertions (new positions), moves (old to
/// new) and reloads (old positions).
///
/// - Parameters:
///   - changes: The change set.
///   - table: The table before the change set (for the names and values of old rows).
///   - headersAfter: The section names after the change set.
func describe(
  _ changes: RelationChangeSet<Album>, before table: TerminalTable, headersAfter: [String]
) -> [String] {
  var lines: [String] = []
  func albums(_ albums: [Album]) -> String {
    let count = albums.count == 1 ? "1 row" : "\(albums.count) rows"
    return "\(count): \(albums.map(\.title).joined(separator: ", "))"
  }
  for (index, elements) in zip(changes.deletedSections, changes.deletedSectionElements) {
    lines.append("delete section \(index) \"\(table.headers[index])\" with its \(albums(elements))")
  }
  for (index, elements) in zip(changes.insertedSections, changes.insertedSectionElements) {
    lines.append("insert section \(index) \"\(headersAfter[index])\" with \(albums(elements))")
  }
  for (position, album) in zip(changes.deletedRows, changes.deletedElements) {
    lines.append("delete row \(pad("\(position)", 16)) \(album.title)")
  }
  for (position, album) in zip(changes.insertedRows, changes.insertedElements) {
    lines.append("insert row \(pad("\(position)", 16)) \(album.title)")
  }
  /// What changed of an album since the table drew it at `position`.
  func changed(_ album: Album, drawnAt position: RowPosition) -> String {
    let differences = table.rows[position.section][position.row].differences(to: Row(album))
    return differences.isEmpty ? "changed" : differences.joined(separator: ", ")
  }
  for (move, album) in zip(changes.movedRows, changes.movedElements) {
    let changed = move.changed ? " (\(changed(album, drawnAt: move.from)))" : ""
    lines.append("move   row \(pad("\(move.from) → \(move.to)", 16)) \(album.title)\(changed)")
  }
  for (position, album) in zip(changes.updatedRows, changes.updatedElements) {
    let changed = changed(album, drawnAt: position)
    lines.append("reload row \(pad("\(position)", 16)) \(album.title) (\(changed))")
  }
  return lines
}

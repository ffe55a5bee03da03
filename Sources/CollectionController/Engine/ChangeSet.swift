import Foundation

/// The changes of one transaction on sectioned content, in the shape UITableView's
/// `performBatchUpdates` takes.
///
/// **An inserted section brings its rows.** A change set names no row inside a section it
/// inserts or deletes, as UIKit wants: `insertSections` makes a table view read the new
/// section's rows from its data source (which reads the controller), and `deleteSections` takes
/// the old rows with it. So do not insert rows for the elements of an inserted section: UIKit
/// raises `NSInternalInconsistencyException`, and a table model of your own goes out of range.
/// `insertedSectionElements` lists them for code that keeps its own arrays, which
/// ``apply(to:)`` updates for you. An element that moves into an inserted section is only a row
/// deletion from its old section; one that leaves a deleted section for a surviving one is a
/// row insertion.
///
/// It has one generic parameter, the element: a `RelationController<Album, Int>` hands a
/// `RelationChangeSet<Album>`. Written with the section key too, it does not compile, with
/// `generic type 'RelationChangeSet' specialized with too many type parameters (got 2, but expected 1)`.
///
/// Applied to the previous content with batch-update rules, a change set gives the current
/// content:
/// - `deletedSections`, `deletedRows`, `updatedRows` and the `from` side of `movedRows` name
///   positions in the **old** content; `insertedSections`, `insertedRows` and the `to` side of
///   `movedRows` name positions in the **new** content;
/// - no old position appears twice among deletions, move sources and updates, and no new position
///   twice among insertions and move destinations;
/// - no row change names a section that is inserted or deleted (the section change covers its
///   rows), and sections never move (they are ordered by key);
/// - rows not mentioned (and updated rows) keep their old relative order and fill, per section,
///   the new positions left free by insertions and move destinations.
///
/// Each list of positions is sorted ascending (moves by destination), and each element list runs
/// parallel to its position list: `insertedElements[i]` is the element at `insertedRows[i]`.
///
/// With UIKit (the Getting Started article has the whole table view, compiled and run by the
/// package's tests against a model of UITableView):
///
/// ```swift
/// tableView.performBatchUpdates {
///   tableView.deleteSections(changes.deletedSections, with: .automatic)
///   tableView.insertSections(changes.insertedSections, with: .automatic)
///   tableView.deleteRows(at: changes.deletedRows.map(IndexPath.init), with: .automatic)
///   tableView.insertRows(at: changes.insertedRows.map(IndexPath.init), with: .automatic)
///   for move in changes.movedRows {
///     tableView.moveRow(at: IndexPath(move.from), to: IndexPath(move.to))
///   }
///   tableView.reloadRows(at: changes.updatedRows.map(IndexPath.init), with: .automatic)
/// }
/// // Then, at new positions: the cells of moves that changed, the headers of renamed sections.
/// tableView.reconfigureRows(at: changes.movedRows.filter(\.changed).map { IndexPath($0.to) })
/// tableView.reloadSections(changes.renamedSections, with: .none)
/// ```
public struct RelationChangeSet<Element> {
  /// An empty change set (the builder fills it).
  @inlinable
  init() {}

  /// A row that moved from an old position to a new one.
  ///
  /// ```swift
  /// for move in changes.movedRows {
  ///   tableView.moveRow(at: IndexPath(move.from), to: IndexPath(move.to))
  /// }
  /// ```
  public struct Move: Hashable, Sendable, CustomStringConvertible {
    /// The old position.
    public var from: RowPosition
    /// The new position.
    public var to: RowPosition
    /// Whether an observed attribute of the element changed as well (reconfigure the cell).
    public var changed: Bool

    /// Creates a move.
    ///
    /// - Parameters:
    ///   - from: The old position.
    ///   - to: The new position.
    ///   - changed: Whether an observed attribute changed as well.
    @inlinable
    public init(from: RowPosition, to: RowPosition, changed: Bool) {
      self.from = from
      self.to = to
      self.changed = changed
    }

    /// `from->to`, with `*` when changed.
    @inlinable
    public var description: String { "\(from)->\(to)\(changed ? "*" : "")" }
  }

  /// Old indexes of the sections that disappeared. (Made on each access: read it once.)
  @inlinable
  public var deletedSections: IndexSet { _deletedSections.indexSet }
  @usableFromInline
  var _deletedSections = _SectionSet()
  /// New indexes of the sections that appeared. (Made on each access: read it once.)
  @inlinable
  public var insertedSections: IndexSet { _insertedSections.indexSet }
  @usableFromInline
  var _insertedSections = _SectionSet()
  /// Old positions of the rows that left (outside deleted sections).
  @inlinable
  public var deletedRows: [RowPosition] { _deletedRows }
  @usableFromInline
  var _deletedRows: [RowPosition] = []
  /// New positions of the rows that arrived (outside inserted sections).
  @inlinable
  public var insertedRows: [RowPosition] { _insertedRows }
  @usableFromInline
  var _insertedRows: [RowPosition] = []
  /// Rows that changed place, old to new.
  @inlinable
  public var movedRows: [Move] { _movedRows }
  @usableFromInline
  var _movedRows: [Move] = []
  /// Old positions of rows that stayed in place (in the batch-update sense) but changed.
  @inlinable
  public var updatedRows: [RowPosition] { _updatedRows }
  @usableFromInline
  var _updatedRows: [RowPosition] = []
  /// New indexes of sections that were there before and after and whose display name changed
  /// (a reconfiguration of the section name): reload their headers after the batch. They
  /// change no content, so `apply(to:)` and the batch-update rules ignore them. (Made on each
  /// access: read it once.)
  @inlinable
  public var renamedSections: IndexSet { _renamedSections.indexSet }
  @usableFromInline
  var _renamedSections = _SectionSet()

  /// The display name of each deleted section, parallel to `deletedSections` (what the
  /// delegate's section callback gets).
  @inlinable
  public var deletedSectionNames: [String] { _deletedSectionNames }
  @usableFromInline
  var _deletedSectionNames: [String] = []
  /// The display name of each inserted section, parallel to `insertedSections`. (A receiver
  /// called in the delivery context reads its key with the controller's `section(at:)`.)
  @inlinable
  public var insertedSectionNames: [String] { _insertedSectionNames }
  @usableFromInline
  var _insertedSectionNames: [String] = []

  /// The elements of each deleted section in old order, parallel to `deletedSections`.
  @inlinable
  public var deletedSectionElements: [[Element]] { _deletedSectionElements }
  @usableFromInline
  var _deletedSectionElements: [[Element]] = []
  /// The elements of each inserted section in new order, parallel to `insertedSections`.
  @inlinable
  public var insertedSectionElements: [[Element]] { _insertedSectionElements }
  @usableFromInline
  var _insertedSectionElements: [[Element]] = []
  /// Parallel to `deletedRows`.
  @inlinable
  public var deletedElements: [Element] { _deletedElements }
  @usableFromInline
  var _deletedElements: [Element] = []
  /// Parallel to `insertedRows`.
  @inlinable
  public var insertedElements: [Element] { _insertedElements }
  @usableFromInline
  var _insertedElements: [Element] = []
  /// Parallel to `movedRows`.
  @inlinable
  public var movedElements: [Element] { _movedElements }
  @usableFromInline
  var _movedElements: [Element] = []
  /// Parallel to `updatedRows`.
  @inlinable
  public var updatedElements: [Element] { _updatedElements }
  @usableFromInline
  var _updatedElements: [Element] = []

  /// Whether the change set changes nothing (the builder never returns such a change set).
  // Always inlined: called, it takes the change set by address, and code that holds it in
  // registers copied it to pass it (a retain of each of its arrays, and a release after).
  @inlinable
  @inline(__always)
  public var isEmpty: Bool {
    _deletedSections.isEmpty && _insertedSections.isEmpty && deletedRows.isEmpty
      && insertedRows.isEmpty && movedRows.isEmpty && updatedRows.isEmpty
      && _renamedSections.isEmpty
  }
}

extension RelationChangeSet: Sendable where Element: Sendable {}

extension RelationChangeSet: CustomStringConvertible {
  /// A compact listing of the changes, for logs and test failures.
  @inlinable
  public var description: String {
    var parts: [String] = []
    func add(_ label: String, _ items: [some CustomStringConvertible]) {
      guard !items.isEmpty else { return }
      parts.append("\(label): \(items.map { $0.description }.joined(separator: " "))")
    }
    add("-sections", Array(_deletedSections))
    add("+sections", Array(_insertedSections))
    add("-rows", deletedRows)
    add("+rows", insertedRows)
    add("moves", movedRows)
    add("updates", updatedRows)
    add("renamed sections", Array(_renamedSections))
    return "ChangeSet(\(parts.joined(separator: "; ")))"
  }
}

// MARK: - Replaying onto arrays

extension RelationChangeSet {
  /// Applies the changes to `sections`, an array of sections holding the previous content.
  ///
  /// Inserted rows and sections take `transform` of their element; moved rows keep their old
  /// value unless `changed` (then they take `transform` of the element), and updated rows take
  /// `transform` of the element.
  ///
  /// ```swift
  /// var rows = albums.sections.map { $0.objects.map(AlbumRow.init) }
  /// for await changes in albums.changes {
  ///   changes.apply(to: &rows, transform: AlbumRow.init)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - sections: The previous content, one array per section; replaced by the new content.
  ///   - transform: Makes the value of an element that is inserted, updated, or moved and
  ///     changed.
  /// - Precondition: `sections` has the shape of the content the change set was computed from.
  /// - Complexity: O(m + r log r), where *m* is the number of elements in `sections` and *r* the
  ///   number of row changes.
  @inlinable
  public func apply<T>(to sections: inout [[T]], transform: (Element) -> T) {
    var removed: [[Bool]] = sections.map { Array(repeating: false, count: $0.count) }
    var replaced: [RowPosition: T] = [:]
    func markRemoved(_ position: RowPosition) {
      _require(
        position.section < removed.count && position.row < removed[position.section].count,
        "RelationChangeSet.apply(to:): the change set does not fit the sections: \(position) "
          + "is out of range")
      removed[position.section][position.row] = true
    }
    for position in deletedRows { markRemoved(position) }
    var incoming: [(position: RowPosition, value: T)] = []
    incoming.reserveCapacity(insertedRows.count + movedRows.count)
    for (move, element) in zip(movedRows, movedElements) {
      markRemoved(move.from)
      let value = move.changed ? transform(element) : sections[move.from.section][move.from.row]
      incoming.append((move.to, value))
    }
    for (position, element) in zip(updatedRows, updatedElements) {
      replaced[position] = transform(element)
    }
    for (position, element) in zip(insertedRows, insertedElements) {
      incoming.append((position, transform(element)))
    }
    incoming.sort { $0.position < $1.position }

    let newCount = sections.count - _deletedSections.count + _insertedSections.count
    var result: [[T]] = []
    result.reserveCapacity(newCount)
    var oldSection = 0
    var insertedOrdinal = 0
    var nextIncoming = 0
    for newSection in 0..<newCount {
      if _insertedSections.contains(newSection) {
        result.append(insertedSectionElements[insertedOrdinal].map(transform))
        insertedOrdinal += 1
        continue
      }
      while _deletedSections.contains(oldSection) { oldSection += 1 }
      _require(
        oldSection < sections.count,
        "RelationChangeSet.apply(to:): the change set does not fit the sections: "
          + "\(sections.count) sections, too few for the change set")
      var kept: [T] = []
      for (row, value) in sections[oldSection].enumerated() where !removed[oldSection][row] {
        kept.append(replaced[RowPosition(section: oldSection, row: row)] ?? value)
      }
      var rows: [T] = []
      var keptIndex = 0
      while true {
        if nextIncoming < incoming.count && incoming[nextIncoming].position.section == newSection
          && incoming[nextIncoming].position.row == rows.count
        {
          rows.append(incoming[nextIncoming].value)
          nextIncoming += 1
        } else if keptIndex < kept.count {
          rows.append(kept[keptIndex])
          keptIndex += 1
        } else {
          break
        }
      }
      _require(
        nextIncoming == incoming.count || incoming[nextIncoming].position.section != newSection,
        "RelationChangeSet.apply(to:): the change set does not fit the sections: a row lands "
          + "beyond the end of section \(newSection)")
      result.append(rows)
      oldSection += 1
    }
    sections = result
  }

  /// Applies the changes to `sections`, an array of sections holding the previous elements.
  ///
  /// ```swift
  /// var content = albums.sections.map { $0.objects }
  /// let token = albums.onChange { changes in
  ///   changes.apply(to: &content)  // now content == albums.sections.map { $0.objects }
  /// }
  /// ```
  ///
  /// - Parameter sections: The previous content, one array per section; replaced by the new
  ///   content.
  /// - Precondition: `sections` has the shape of the content the change set was computed from.
  /// - Complexity: O(m + r log r), where *m* is the number of elements in `sections` and *r* the
  ///   number of row changes.
  @inlinable
  public func apply(to sections: inout [[Element]]) {
    apply(to: &sections) { $0 }
  }

  /// The changes of a single-section content as a standard `CollectionDifference`.
  ///
  /// Removals are deletions and move sources (old offsets), insertions are insertions and move
  /// destinations (new offsets), with moves associated. A deleted section 0 removes all its
  /// elements and an inserted section 0 inserts all of them. Updates have no counterpart in
  /// `CollectionDifference` and are left out (read `updatedRows`).
  ///
  /// ```swift
  /// var shown = albums.objects  // a controller without sections
  /// let token = albums.onChange { changes in
  ///   if let difference = changes.collectionDifference(), let next = shown.applying(difference) {
  ///     shown = next  // now shown == albums.objects
  ///   }
  /// }
  /// ```
  ///
  /// - Returns: `nil` if the change set names any section other than 0.
  /// - Complexity: O(r), where *r* is the number of changed rows.
  @inlinable
  public func collectionDifference() -> CollectionDifference<Element>? {
    let sectionsOK =
      _deletedSections.allSatisfy { $0 == 0 }
      && _insertedSections.allSatisfy { $0 == 0 }
    let rowsOK =
      deletedRows.allSatisfy { $0.section == 0 }
      && insertedRows.allSatisfy { $0.section == 0 }
      && movedRows.allSatisfy { $0.from.section == 0 && $0.to.section == 0 }
    guard sectionsOK && rowsOK else { return nil }
    typealias Change = CollectionDifference<Element>.Change
    var changes: [Change] = []
    for elements in deletedSectionElements {
      for (offset, element) in elements.enumerated() {
        changes.append(.remove(offset: offset, element: element, associatedWith: nil))
      }
    }
    for elements in insertedSectionElements {
      for (offset, element) in elements.enumerated() {
        changes.append(.insert(offset: offset, element: element, associatedWith: nil))
      }
    }
    for (position, element) in zip(deletedRows, deletedElements) {
      changes.append(.remove(offset: position.row, element: element, associatedWith: nil))
    }
    for (position, element) in zip(insertedRows, insertedElements) {
      changes.append(.insert(offset: position.row, element: element, associatedWith: nil))
    }
    for (move, element) in zip(movedRows, movedElements) {
      changes.append(.remove(offset: move.from.row, element: element, associatedWith: move.to.row))
      changes.append(.insert(offset: move.to.row, element: element, associatedWith: move.from.row))
    }
    return CollectionDifference(changes)
  }
}

/// A set of section indexes that allocates nothing while it is empty (most change sets change
/// no section, and an empty `IndexSet` allocates twice on Linux). Sorted
/// and without duplicates; a change set changes few sections, so a plain array is enough.
@usableFromInline
struct _SectionSet: Sequence, Sendable {
  @usableFromInline
  var _indexes: [Int] = []

  @inlinable
  init() {}

  /// The indexes as the `IndexSet` the public API hands out.
  @inlinable
  var indexSet: IndexSet { _indexes.isEmpty ? IndexSet() : IndexSet(_indexes) }

  @inlinable
  var isEmpty: Bool { _indexes.isEmpty }

  @inlinable
  var count: Int { _indexes.count }

  @inlinable
  func contains(_ index: Int) -> Bool {
    let position = _position(of: index)
    return position < _indexes.count && _indexes[position] == index
  }

  /// The set of `indexes`, which are distinct: O(k log k), where adding them one by one
  /// shifts the sorted array each time (O(k^2)).
  @inlinable
  init(distinct indexes: [Int]) {
    _indexes = indexes.sorted()
  }

  /// Adds `index` (keeping the indexes sorted); does nothing if it is there.
  @inlinable
  mutating func insert(_ index: Int) {
    let position = _position(of: index)
    if position == _indexes.count || _indexes[position] != index {
      _indexes.insert(index, at: position)
    }
  }

  /// The first position whose index is not below `index`.
  @inlinable
  func _position(of index: Int) -> Int {
    var low = 0
    var high = _indexes.count
    while low < high {
      let middle = (low + high) / 2
      if _indexes[middle] < index { low = middle + 1 } else { high = middle }
    }
    return low
  }

  @inlinable
  func makeIterator() -> IndexingIterator<[Int]> { _indexes.makeIterator() }
}

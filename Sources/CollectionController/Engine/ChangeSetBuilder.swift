import Foundation

/// Computes the change set of one transaction on an `_OrderedIndex`.
///
/// A transaction runs in three steps:
///
/// ```swift
/// // 1. Touch each element, on the unmodified index.
/// var builder = _ChangeSetBuilder(before: index)
/// for (element, changed) in dirty {
///   builder.touch(element, changedAttributes: changed, in: index)
/// }
/// // 2. Take every touched element out, insert again those that belong, remove the others.
/// index.detach(contentsOf: builder.touchedSlots)
/// for (element, _) in dirty where isMember(element) {
///   let point = index.insertionPoint(
///     for: element, sectionKey: key(element), sequence: sequence(element))
///   index.insert(element, sequence: sequence(element), at: point)
/// }
/// index.removeDetached()
/// // 3. Finish: `false` when nothing visible changed.
/// var changes = RelationChangeSet<Element>()
/// if builder.finish(after: index, into: &changes) {
///   deliver(changes)
/// }
/// ```
///
/// Touch every element whose membership, section or sort keys may have changed, every element
/// that entered or left, and every element whose observed attributes changed. Elements not
/// touched must keep their section and their order relative to each other (the index's stable
/// order guarantees that when their keys did not change).
///
/// The result follows UIKit's batch-update rules (see `ChangeSet`) and is nearly minimal in
/// moves: a touched element that stays in its section is reported as a move only when leaving
/// it unmentioned would not put it at its new row, and among the touched elements that could
/// stay unmentioned, those whose position is unchanged and a longest subset in consistent order
/// with them do (`_keptInPlace`: no move from a position to the same position).
///
/// For a whole-relation replacement, diff the memberships by identity and touch only the
/// elements that entered or left (plus those whose keys changed): the cost is then in the churn,
/// where touching every element (as a changed sort must) costs O(n log n).
///
/// - Complexity: `touch` is expected O(log n); `finish` is O(k log n + k log k) for *k* touched
///   elements in an index of *n*.
@usableFromInline
struct _ChangeSetBuilder<Element: AnyObject, SectionKey: Hashable & Comparable> {
  /// What a touched element was before the transaction.
  @usableFromInline
  struct _Touch {
    @usableFromInline
    var id: ObjectIdentifier
    @usableFromInline
    var element: Element?
    @usableFromInline
    var oldKey: SectionKey?
    @usableFromInline
    var old: RowPosition?
    @usableFromInline
    var changed: Bool
    /// The element's slot in the index when it was touched, or -1 (a hint: see
    /// `_OrderedIndex.slot(of:)`).
    @usableFromInline
    var slot: Int32

    @inlinable
    init(
      id: ObjectIdentifier, element: Element?, oldKey: SectionKey?, old: RowPosition?,
      changed: Bool, slot: Int32
    ) {
      self.id = id
      self.element = element
      self.oldKey = oldKey
      self.old = old
      self.changed = changed
      self.slot = slot
    }
  }

  /// The first touch, kept inline: a transaction that touches one element (the common one)
  /// then allocates no array.
  @usableFromInline
  var _first: _Touch?
  /// The touches after the first.
  @usableFromInline
  var _touches: [_Touch] = []
  #if COLLECTION_CONTROLLER_INTERNAL_CHECKS
    /// The identities touched so far, to check that none is touched twice.
    @usableFromInline
    var _touched: Set<ObjectIdentifier> = []
  #endif
  @usableFromInline
  let _version: UInt64

  /// Begins a transaction on `index` in its state before the transaction.
  @inlinable
  init(before index: borrowing _OrderedIndex<Element, SectionKey>) {
    _version = index._version
  }

  /// The keys of the sections the finished change set deletes, in the order of
  /// `deletedSections` (set by `finish(after:)`).
  @usableFromInline
  private(set) var deletedSectionKeys: [SectionKey] = []

  /// The number of distinct touched elements.
  @inlinable
  var touchedCount: Int { (_first == nil ? 0 : 1) + _touches.count }

  /// Records the old place of `element` (if it is in the index).
  ///
  /// - Precondition: `index` is the index the builder began with, not yet modified, and the
  ///   element was not touched before (callers merge repeated touches first: the controller's
  ///   dirty list holds each element once; checked in debug builds).
  /// - Complexity: Expected O(log n).
  @inlinable
  mutating func touch(
    _ element: Element, changedAttributes: Bool,
    in index: borrowing _OrderedIndex<Element, SectionKey>
  ) {
    precondition(index._version == _version, "touch every element before modifying the index")
    let id = ObjectIdentifier(element)
    #if COLLECTION_CONTROLLER_INTERNAL_CHECKS
      precondition(_touched.insert(id).inserted, "an element was touched twice")
    #endif
    // The position only: the caller has the element (reading the index's copy of it is one
    // more cache miss in a large index).
    let slot = index.slot(of: id)
    let old = index.position(of: id, hint: slot)
    let touch = _Touch(
      id: id, element: old == nil ? nil : element,
      oldKey: old.map { index.sectionKey(at: $0.section) }, old: old,
      changed: changedAttributes, slot: slot)
    if _first == nil { _first = touch } else { _touches.append(touch) }
  }

  /// The index slot of the touch at `offset` (in the order of the `touch` calls) when it was
  /// touched, or -1: a hint for the index (see `_OrderedIndex.slot(of:)`).
  @inlinable
  func slotHint(_ offset: Int) -> Int32 {
    offset == 0 ? _first?.slot ?? -1 : _touches[offset - 1].slot
  }

  /// The touched identities in the order of the `touch` calls, each with its index slot when it
  /// was touched (for `_OrderedIndex.detach(contentsOf:)`, which checks the slots).
  @inlinable
  var touchedSlots: TouchedSlots {
    TouchedSlots(first: _first.map { ($0.id, $0.slot) }, rest: _touches)
  }

  /// The touched identities with their slots (see `touchedSlots`).
  @usableFromInline
  struct TouchedSlots: Sequence, IteratorProtocol {
    @usableFromInline
    var first: (id: ObjectIdentifier, hint: Int32)?
    @usableFromInline
    let rest: [_Touch]
    @usableFromInline
    var offset = 0

    @inlinable
    init(first: (id: ObjectIdentifier, hint: Int32)?, rest: [_Touch]) {
      self.first = first
      self.rest = rest
    }

    @inlinable
    mutating func next() -> (id: ObjectIdentifier, hint: Int32)? {
      if let touch = first {
        first = nil
        return touch
      }
      guard offset < rest.count else { return nil }
      defer { offset += 1 }
      return (rest[offset].id, rest[offset].slot)
    }
  }

  /// Where the element of `touch` is now, or `nil` if it is neither present before nor after
  /// (it is then not part of the change set).
  @inlinable
  func _entry(
    _ touch: _Touch, after index: borrowing _OrderedIndex<Element, SectionKey>
  ) -> _Entry? {
    let element: Element
    let new: RowPosition?
    if let known = touch.element {
      // Only the position: the touch holds the element, and reading the index's copy of it is
      // one more cache miss in a large index.
      element = known
      new = index.position(of: touch.id, hint: touch.slot)
    } else {
      guard let located = index.located(touch.id) else { return nil }
      (element, new) = located
    }
    return _Entry(
      element: element, oldKey: touch.oldKey, old: touch.old,
      newKey: new.map { index.sectionKey(at: $0.section) }, new: new, changed: touch.changed)
  }

  /// Finishes the transaction on the modified `index`, writing the change set into `changes`
  /// (empty when called): the controller's path, where the change set is built where it stays
  /// (returning it from a variable copies it, retaining each of its arrays, and destroys the
  /// original; an explicit `consume` does not compile there with Swift 6.3).
  ///
  /// - Returns: Whether something visible changed (`changes` is not empty).
  /// - Complexity: O(k log n + k log k) for *k* touched elements.
  @inlinable
  mutating func finish(
    after index: borrowing _OrderedIndex<Element, SectionKey>, oneElementShortcut: Bool = true,
    into changes: inout RelationChangeSet<Element>
  ) -> Bool {
    guard let first = _first else { return false }
    if _touches.isEmpty && oneElementShortcut {
      guard let entry = _entry(first, after: index) else { return false }
      _finishOne(entry, after: index, into: &changes)
      return !changes.isEmpty
    }
    // Where each touched element is now.
    var entries: [_Entry] = []
    entries.reserveCapacity(1 + _touches.count)
    if let entry = _entry(first, after: index) { entries.append(entry) }
    for touch in _touches {
      if let entry = _entry(touch, after: index) { entries.append(entry) }
    }

    if entries.count == 1 && oneElementShortcut {
      _finishOne(entries[0], after: index, into: &changes)
      return !changes.isEmpty
    }

    // Sections, by index rather than by key (a dictionary of generic keys runs generic code on
    // every transaction). An old section disappeared if the index no longer has its key. A new
    // section appeared if all of its elements are touched and none of them came from a section
    // with its key (the permanent section never appears or disappears).
    var entryOfOldSection: [Int: Int] = [:]
    var touchesOfNewSection: [Int: Int] = [:]
    for i in entries.indices {
      // Fields read in place: a copy of the entry retains its element.
      if let old = entries[i].old, entryOfOldSection[old.section] == nil {
        entryOfOldSection[old.section] = i
      }
      if let new = entries[i].new { touchesOfNewSection[new.section, default: 0] += 1 }
    }
    var deletedOld: [Int: SectionKey] = [:]
    // Section sets are made from all their indexes at once, and the old sections' keys are
    // searched, so that a transaction that deletes or inserts many sections costs O(s log s),
    // not O(s^2).
    var deletedSections: [Int] = []
    for (section, i) in entryOfOldSection {
      // Safe: an entry with an old position has the key of its old section.
      let key = entries[i].oldKey.unsafelyUnwrapped
      if index.sectionIndex(for: key) == nil {
        deletedOld[section] = key
        deletedSections.append(section)
      }
    }
    changes._deletedSections = _SectionSet(distinct: deletedSections)
    // Safe: every deleted section is a key of `deletedOld`.
    deletedSectionKeys = changes._deletedSections.map { deletedOld[$0].unsafelyUnwrapped }
    // The keys of the touched elements' old sections, in key order (the order of the old
    // section indexes).
    let oldKeys = entryOfOldSection.keys.sorted().map {
      // Safe: a key of `entryOfOldSection` maps to an entry with an old section key.
      entries[entryOfOldSection[$0].unsafelyUnwrapped].oldKey.unsafelyUnwrapped
    }
    var insertedNew: Set<Int> = []
    for (section, touched) in touchesOfNewSection
    where !index._sections[section].isPermanent && index.count(inSection: section) == touched {
      let key = index.sectionKey(at: section)
      let position = _lowerBound(oldKeys.count) { oldKeys[$0] < key }
      let existed = position < oldKeys.count && oldKeys[position] == key
      if !existed { insertedNew.insert(section) }
    }
    changes._insertedSections = _SectionSet(distinct: Array(insertedNew))

    // For each touched element, the number of untouched elements before it in its old and new
    // section: an element can stay unmentioned only if both counts agree.
    var untouchedBeforeOld = [Int](repeating: -1, count: entries.count)
    var untouchedBeforeNew = [Int](repeating: -1, count: entries.count)
    Self._countUntouchedBefore(entries.map { $0.old }, into: &untouchedBeforeOld)
    Self._countUntouchedBefore(entries.map { $0.new }, into: &untouchedBeforeNew)

    // Positions with entry indexes (not elements): arrays of non-generic types sort with code
    // specialised here, where a generic element would make every comparison generic.
    var deleted: [(RowPosition, Int)] = []
    var inserted: [(RowPosition, Int)] = []
    var moved: [_Moved] = []
    var updated: [(RowPosition, Int)] = []
    var candidates: [_MoveCandidate] = []
    var deletedSectionRows: [Int: [(Int, Int)]] = [:]
    var insertedSectionRows: [Int: [(Int, Int)]] = [:]
    for i in entries.indices {
      // Fields read in place: a copy of the entry retains its element.
      let (entryOld, entryNew) = (entries[i].old, entries[i].new)
      // Positions outside deleted and inserted sections ("live"); the others are covered by
      // their section's change.
      var liveOld: RowPosition?
      var liveNew: RowPosition?
      if let old = entryOld {
        if deletedOld[old.section] != nil {
          deletedSectionRows[old.section, default: []].append((old.row, i))
        } else {
          liveOld = old
        }
      }
      if let new = entryNew {
        if insertedNew.contains(new.section) {
          insertedSectionRows[new.section, default: []].append((new.row, i))
        } else {
          liveNew = new
        }
      }
      switch (liveOld, liveNew) {
      case (nil, nil):
        break
      case (let old?, nil):
        deleted.append((old, i))
      case (nil, let new?):
        inserted.append((new, i))
      case (let old?, let new?):
        if entries[i].oldKey == entries[i].newKey
          && untouchedBeforeOld[i] == untouchedBeforeNew[i]
        {
          candidates.append(_MoveCandidate(entry: i, old: old, new: new))
        } else {
          moved.append(_Moved(from: old, to: new, entry: i))
        }
      }
    }

    // Among candidates of one section, keep a longest run whose old and new orders agree.
    candidates.sort { $0.old < $1.old }
    var start = 0
    while start < candidates.count {
      let section = candidates[start].old.section
      var end = start
      while end < candidates.count && candidates[end].old.section == section { end += 1 }
      let run = Array(candidates[start..<end])
      let keep = _keptInPlace(run)
      for (candidate, kept) in zip(run, keep) {
        if kept {
          if entries[candidate.entry].changed { updated.append((candidate.old, candidate.entry)) }
        } else {
          moved.append(_Moved(from: candidate.old, to: candidate.new, entry: candidate.entry))
        }
      }
      start = end
    }

    _sortByPosition(&deleted)
    _sortByPosition(&inserted)
    _sortByDestination(&moved)
    _sortByPosition(&updated)
    changes._deletedRows = deleted.map { $0.0 }
    changes._deletedElements = deleted.map { entries[$0.1].element }
    changes._insertedRows = inserted.map { $0.0 }
    changes._insertedElements = inserted.map { entries[$0.1].element }
    changes._movedRows = moved.map {
      RelationChangeSet<Element>.Move(from: $0.from, to: $0.to, changed: entries[$0.entry].changed)
    }
    changes._movedElements = moved.map { entries[$0.entry].element }
    changes._updatedRows = updated.map { $0.0 }
    changes._updatedElements = updated.map { entries[$0.1].element }
    // Every element of a deleted or inserted section is touched, so these lists are complete.
    changes._deletedSectionElements = changes._deletedSections.map { section in
      _sortedByRow(deletedSectionRows[section, default: []]).map { entries[$0.1].element }
    }
    changes._insertedSectionElements = changes._insertedSections.map { section in
      _sortedByRow(insertedSectionRows[section, default: []]).map { entries[$0.1].element }
    }
    return !changes.isEmpty
  }
}

extension _ChangeSetBuilder {
  /// `finish(after:)` for one touched element (one write moving one element, the common
  /// transaction): the same change set, without the bookkeeping for many (no dictionaries, no
  /// sorts, no subsequence). `ChangeSetBuilderTests/oneTouchedElementGetsTheGeneralChangeSet`
  /// checks that both give the same change set.
  @inlinable
  mutating func _finishOne(
    _ entry: _Entry, after index: borrowing _OrderedIndex<Element, SectionKey>,
    into changes: inout RelationChangeSet<Element>
  ) {
    var liveOld = entry.old
    var liveNew = entry.new
    if let old = entry.old, let key = entry.oldKey, index.sectionIndex(for: key) == nil {
      // Its old section disappeared with it.
      changes._deletedSections.insert(old.section)
      changes._deletedSectionElements = [[entry.element]]
      deletedSectionKeys = [key]
      liveOld = nil
    }
    if let new = entry.new, !index._sections[new.section].isPermanent,
      index.count(inSection: new.section) == 1, entry.oldKey != entry.newKey
    {
      // Its new section appeared with it (a section whose key it came from existed before).
      changes._insertedSections.insert(new.section)
      changes._insertedSectionElements = [[entry.element]]
      liveNew = nil
    }
    switch (liveOld, liveNew) {
    case (nil, nil):
      break
    case (let old?, nil):
      changes._deletedRows = [old]
      changes._deletedElements = [entry.element]
    case (nil, let new?):
      changes._insertedRows = [new]
      changes._insertedElements = [entry.element]
    case (let old?, let new?):
      // Alone in the transaction, it stays unmentioned only at the same row of the same
      // section (the untouched elements before it are its row on both sides).
      if entry.oldKey == entry.newKey && old.row == new.row {
        if entry.changed {
          changes._updatedRows = [old]
          changes._updatedElements = [entry.element]
        }
      } else {
        changes._movedRows = [
          RelationChangeSet<Element>.Move(from: old, to: new, changed: entry.changed)
        ]
        changes._movedElements = [entry.element]
      }
    }
  }

  /// A touched element present before or after the transaction.
  @usableFromInline
  struct _Entry {
    @usableFromInline
    var element: Element
    @usableFromInline
    var oldKey: SectionKey?
    @usableFromInline
    var old: RowPosition?
    @usableFromInline
    var newKey: SectionKey?
    @usableFromInline
    var new: RowPosition?
    @usableFromInline
    var changed: Bool

    @inlinable
    init(
      element: Element, oldKey: SectionKey?, old: RowPosition?, newKey: SectionKey?,
      new: RowPosition?, changed: Bool
    ) {
      self.element = element
      self.oldKey = oldKey
      self.old = old
      self.newKey = newKey
      self.new = new
      self.changed = changed
    }
  }

  /// For each entry with a position on one side (`positions`, the entries' positions on that
  /// side), its row minus the number of touched entries before it in the same section: the
  /// number of untouched elements before it.
  @inlinable
  static func _countUntouchedBefore(_ positions: [RowPosition?], into result: inout [Int]) {
    var order: [(entry: Int, position: RowPosition)] = positions.indices.compactMap { i in
      positions[i].map { (i, $0) }
    }
    order.sort { $0.position < $1.position }
    var section = -1
    var touchedBefore = 0
    for (i, position) in order {
      if position.section != section {
        section = position.section
        touchedBefore = 0
      }
      result[i] = position.row - touchedBefore
      touchedBefore += 1
    }
  }
}

/// A touched element present in the same surviving section before and after, with as many
/// untouched elements before it on both sides: it may stay unmentioned. (Not nested in the
/// generic builder, so that sorting these runs specialised code.)
@usableFromInline
struct _MoveCandidate {
  @usableFromInline
  var entry: Int
  @usableFromInline
  var old: RowPosition
  @usableFromInline
  var new: RowPosition

  @inlinable
  init(entry: Int, old: RowPosition, new: RowPosition) {
    self.entry = entry
    self.old = old
    self.new = new
  }
}

/// A move, with the index of its entry.
@usableFromInline
struct _Moved {
  @usableFromInline
  var from: RowPosition
  @usableFromInline
  var to: RowPosition
  @usableFromInline
  var entry: Int

  @inlinable
  init(from: RowPosition, to: RowPosition, entry: Int) {
    self.from = from
    self.to = to
    self.entry = entry
  }
}

// Sorts of non-generic arrays, compiled once here (see `_ChangeSetBuilder.finish`).

@inlinable
func _sortByPosition(_ rows: inout [(RowPosition, Int)]) { rows.sort { $0.0 < $1.0 } }

@inlinable
func _sortByDestination(_ moves: inout [_Moved]) { moves.sort { $0.to < $1.to } }

@inlinable
func _sortedByRow(_ rows: [(Int, Int)]) -> [(Int, Int)] { rows.sorted { $0.0 < $1.0 } }

/// Marks the candidates of one section (in old order) that stay unmentioned: every candidate
/// whose position is unchanged, plus a longest subset in consistent order among those that
/// agree with all of them. So no candidate moves from a position to the same position
/// (reversing three elements moves the outer two, not the middle one too). The price is moves
/// beyond the minimum where an unchanged row sits between two blocks that swap (2k moves for
/// blocks of k, instead of k + 1), a small share of a reorder's moves; the minimal rule (the
/// unchanged rows preferred only among the longest subsets) leaves same-position moves instead.
///
/// - Complexity: O(m log m) for *m* candidates.
@inlinable
func _keptInPlace(_ run: [_MoveCandidate]) -> [Bool] {
  // In old order, so their rows increase in both orders: they agree with each other.
  let fixedRows = run.filter { $0.old == $0.new }.map(\.old.row)
  guard !fixedRows.isEmpty else { return _longestIncreasingSubsequence(run.map(\.new.row)) }
  var keep = [Bool](repeating: false, count: run.count)
  var free: [Int] = []
  for (i, candidate) in run.enumerated() {
    if candidate.old == candidate.new {
      keep[i] = true
      continue
    }
    // It agrees with every unchanged candidate unless one lies strictly between its rows.
    let low = min(candidate.old.row, candidate.new.row)
    let high = max(candidate.old.row, candidate.new.row)
    let first = _lowerBound(fixedRows.count) { fixedRows[$0] <= low }  // first row above `low`
    if first < fixedRows.count && fixedRows[first] < high { continue }
    free.append(i)
  }
  for (j, kept) in _longestIncreasingSubsequence(free.map { run[$0].new.row }).enumerated()
  where kept {
    keep[free[j]] = true
  }
  return keep
}

/// Marks a longest strictly increasing subsequence of `values`.
///
/// - Complexity: O(m log m) for *m* values.
@inlinable
func _longestIncreasingSubsequence<Value: Comparable>(_ values: [Value]) -> [Bool] {
  // Already increasing (the common case: elements removed and inserted, none reordered): O(n).
  if zip(values, values.dropFirst()).allSatisfy({ $0 < $1 }) {
    return [Bool](repeating: true, count: values.count)
  }
  var tails: [Int] = []  // indices into values: tails[l] ends the best run of length l + 1
  var previous = [Int](repeating: -1, count: values.count)
  for (i, value) in values.enumerated() {
    let low = _lowerBound(tails.count) { values[tails[$0]] < value }
    if low > 0 { previous[i] = tails[low - 1] }
    if low == tails.count {
      tails.append(i)
    } else {
      tails[low] = i
    }
  }
  var keep = [Bool](repeating: false, count: values.count)
  var i = tails.last ?? -1
  while i >= 0 {
    keep[i] = true
    i = previous[i]
  }
  return keep
}

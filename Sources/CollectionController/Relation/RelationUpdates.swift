/// Which changes of an element that stays in place a relation controller reports as an update
/// (and flags on a move as `changed`).
///
/// ```swift
/// // Every visible change (the default): renaming an album sorted by title reloads its row.
/// let albums = try RelationController(\.albums, of: artist, sortedBy: [SortDescriptor(\.title)])
///
/// // Only the attributes named in `observing:` (the rule of earlier releases).
/// let quiet = try RelationController(
///   \.albums, of: artist, sortedBy: [SortDescriptor(\.title)], observing: [\.rating],
///   reportsUpdatesOf: .observedAttributes)
/// ```
///
/// The ChangeDelivery article states the rule, with the tests that check it.
public enum RelationUpdates: Hashable, Sendable {
  /// Everything the controller reads of an element: a change of what its filter, sort
  /// comparators or section function read, or of an attribute named in `observing:`, is an
  /// update (a move flagged `changed`), as NSFetchedResultsController reports a fetched
  /// object that changed.
  ///
  /// What the controller can read itself it compares by value, once per transaction (so an
  /// equal write, or a value written back within one `coalesce` block, is no update): the
  /// observed attributes and the kept sort keys (`SortDescriptor`s on key paths to standard
  /// value types: numbers, `String`, `Date` and the others ChangeDelivery lists). A filter, a
  /// section function (any controller with sections) and any other comparator (a
  /// `KeyPathComparator`, one of your own) are closures it cannot look into: in a
  /// configuration with one of them, any write that reaches the element's watch counts, that
  /// is, a write of any `@Observed` property of the element or of an object its functions
  /// read, even of an equal value or of a property none of them reads.
  ///
  /// What it costs: one row update per such write (a cell reload or reconfiguration), and, in
  /// a configuration without closures, a hash of each sort key when the element is
  /// re-evaluated (its read, which observing it needs anyway, is shared).
  case everythingRead
  /// Only the attributes named in `observing:`, compared by value once per transaction: a
  /// change of a sort key, of what the filter or section function reads, or of any other
  /// attribute reports nothing unless it moves the element (a move not flagged `changed`).
  case observedAttributes
}

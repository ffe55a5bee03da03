import Foundation

/// The sort keys of an ordered index's elements, read once and kept by slot, so that a
/// comparison compares two kept values with specialised code instead of reading both elements
/// through key paths and an existential comparator.
///
/// Keys are read when an element is placed (``stage(_:)``, then ``keepStaged(at:)`` when it is
/// inserted) and only then: an element's keys change only when it is placed again, so the index
/// is always ordered by its kept keys, never by a mix of kept and live values.
///
/// Built from `SortDescriptor`s by ``make(_:)`` when every descriptor names a key path to a
/// value type (or an optional of one) and compares it by `Comparable` or by a
/// `String.StandardComparator`, the two comparisons `SortDescriptor` offers; otherwise the
/// controller compares live elements with the descriptors (the general path).
final class _SortKeys<Element> {
  /// One column per descriptor, first decides.
  let columns: [_KeyColumn<Element>]
  /// The identity of the staged element, checked when it is kept.
  private var _staged: ObjectIdentifier?

  init(_ columns: [_KeyColumn<Element>]) {
    self.columns = columns
  }

  /// Kept keys for `comparators`, or `nil` when one of them cannot be specialised (see above).
  static func make(_ comparators: [any SortComparator<Element>]) -> _SortKeys? {
    var columns: [_KeyColumn<Element>] = []
    for comparator in comparators {
      guard let column = _column(comparator) else { return nil }
      columns.append(column)
    }
    return _SortKeys(columns)
  }

  /// Reads `element`'s keys as the element about to be placed.
  func stage(_ element: Element) where Element: AnyObject {
    for column in columns { column.stage(element) }
    _staged = ObjectIdentifier(element)
  }

  /// Compares the staged keys with those kept at `slot`.
  @inline(__always)
  func compareStaged(with slot: Int32) -> ComparisonResult {
    for column in columns {
      let result = column.compareStaged(with: slot)
      if result != .orderedSame { return result }
    }
    return .orderedSame
  }

  /// Keeps the staged keys at `slot`, the slot `element` was inserted into.
  func keepStaged(at slot: Int32, for element: Element) where Element: AnyObject {
    precondition(
      _staged == ObjectIdentifier(element), "the element inserted is not the one staged")
    for column in columns { column.keepStaged(at: slot) }
    _staged = nil
  }

  /// Reads `element`'s keys and keeps them at `slot` (a bulk load).
  func keep(_ element: Element, at slot: Int32) {
    for column in columns { column.keep(element, at: slot) }
  }

  /// Compares the keys kept at two slots.
  @inline(__always)
  func compare(_ a: Int32, _ b: Int32) -> ComparisonResult {
    for column in columns {
      let result = column.compare(a, b)
      if result != .orderedSame { return result }
    }
    return .orderedSame
  }

  /// Reads every key of `element`, keeping nothing (so that observing the read observes what
  /// the sort reads).
  func read(_ element: Element) {
    for column in columns { column.read(element) }
  }

  /// Forgets every kept key.
  func removeAll() {
    for column in columns { column.removeAll() }
  }

  /// A column for `comparator` if it is a `SortDescriptor` that can be specialised.
  private static func _column(_ comparator: any SortComparator<Element>) -> _KeyColumn<Element>? {
    guard let descriptor = comparator as? SortDescriptor<Element>,
      let keyPath = descriptor.keyPath
    else { return nil }
    let ascending = descriptor.order == .forward
    if var strings = descriptor.stringComparator {
      // The descriptor applies its own order on top of its string comparator's.
      strings.order = .forward
      if let keyPath = keyPath as? KeyPath<Element, String> {
        return _StringKeyColumn(keyPath, strings, ascending: ascending)
      }
      if let keyPath = keyPath as? KeyPath<Element, String?> {
        return _OptionalStringKeyColumn(keyPath, strings, ascending: ascending)
      }
      return nil
    }
    if let opener = keyPath as? any _ComparableKeyPath<Element> {
      return opener._column(ascending: ascending)
    }
    if let opener = keyPath as? any _OptionalComparableKeyPath<Element> {
      return opener._optionalColumn(ascending: ascending)
    }
    return nil
  }
}

/// One sort key of every slot (see `_SortKeys`); subclasses keep values of one type.
class _KeyColumn<Element> {
  func stage(_ element: Element) { fatalError("abstract") }
  func compareStaged(with slot: Int32) -> ComparisonResult { fatalError("abstract") }
  func keepStaged(at slot: Int32) { fatalError("abstract") }
  func keep(_ element: Element, at slot: Int32) { fatalError("abstract") }
  func compare(_ a: Int32, _ b: Int32) -> ComparisonResult { fatalError("abstract") }
  func read(_ element: Element) { fatalError("abstract") }
  func removeAll() { fatalError("abstract") }
}

/// A column of values of one type, compared by `order` (the subclass's comparison).
class _ValueKeyColumn<Element, Value>: _KeyColumn<Element> {
  let keyPath: KeyPath<Element, Value>
  let ascending: Bool
  /// The kept value of every slot up to the highest used (freed slots keep a stale value).
  final var values: ContiguousArray<Value> = []
  final var staged: Value?

  init(_ keyPath: KeyPath<Element, Value>, ascending: Bool) {
    self.keyPath = keyPath
    self.ascending = ascending
  }

  /// The ascending comparison of two values (the subclass's).
  func order(_ a: Value, _ b: Value) -> ComparisonResult { fatalError("abstract") }

  @inline(__always)
  final func _directed(_ result: ComparisonResult) -> ComparisonResult {
    if ascending || result == .orderedSame { return result }
    return result == .orderedAscending ? .orderedDescending : .orderedAscending
  }

  final override func stage(_ element: Element) { staged = element[keyPath: keyPath] }

  final override func compareStaged(with slot: Int32) -> ComparisonResult {
    // Safe: `stage` runs before every comparison of a placement.
    _directed(order(staged.unsafelyUnwrapped, values[Int(slot)]))
  }

  final override func keepStaged(at slot: Int32) {
    // Safe: `stage` ran for this placement (`_SortKeys.keepStaged` checks the element).
    _store(staged.unsafelyUnwrapped, at: slot)
    staged = nil
  }

  final override func keep(_ element: Element, at slot: Int32) {
    _store(element[keyPath: keyPath], at: slot)
  }

  @inline(__always)
  final func _store(_ value: Value, at slot: Int32) {
    let slot = Int(slot)
    if slot < values.count {
      values[slot] = value
    } else {
      // Slots freed before these keys were made (a reconfiguration) are filled with this value.
      values.append(contentsOf: repeatElement(value, count: slot - values.count + 1))
    }
  }

  final override func compare(_ a: Int32, _ b: Int32) -> ComparisonResult {
    _directed(order(values[Int(a)], values[Int(b)]))
  }

  final override func read(_ element: Element) { _ = element[keyPath: keyPath] }

  final override func removeAll() {
    values.removeAll()
    staged = nil
  }
}

/// The ascending order of two `Comparable` values, as `ComparableComparator` gives it, except
/// that a value not equal to itself (a floating-point NaN), which `<` leaves unordered, orders
/// after every value that is: the kept keys are then a total order, so a NaN key gets one
/// defined place instead of one that depends on the order of the edits.
@inline(__always)
func _totalOrder<Value: Comparable>(_ a: Value, _ b: Value) -> ComparisonResult {
  if a < b { return .orderedAscending }
  if b < a { return .orderedDescending }
  if a == b { return .orderedSame }
  let (aUnordered, bUnordered) = (a != a, b != b)
  if aUnordered == bUnordered { return .orderedSame }
  return aUnordered ? .orderedDescending : .orderedAscending
}

/// `Comparable` values, compared as `ComparableComparator` does (NaN last, see `_totalOrder`).
final class _ComparableKeyColumn<Element, Value: Comparable>: _ValueKeyColumn<Element, Value> {
  override func order(_ a: Value, _ b: Value) -> ComparisonResult { _totalOrder(a, b) }
}

/// Optional `Comparable` values, `nil` first, as `SortDescriptor` orders them.
final class _OptionalComparableKeyColumn<Element, Wrapped: Comparable>:
  _ValueKeyColumn<Element, Wrapped?>
{
  override func order(_ a: Wrapped?, _ b: Wrapped?) -> ComparisonResult {
    switch (a, b) {
    case (nil, nil): .orderedSame
    case (nil, _): .orderedAscending
    case (_, nil): .orderedDescending
    case (let a?, let b?): _totalOrder(a, b)
    }
  }
}

/// Strings compared by a `String.StandardComparator`.
final class _StringKeyColumn<Element>: _ValueKeyColumn<Element, String> {
  let comparator: String.StandardComparator

  init(
    _ keyPath: KeyPath<Element, String>, _ comparator: String.StandardComparator,
    ascending: Bool
  ) {
    self.comparator = comparator
    super.init(keyPath, ascending: ascending)
  }

  override func order(_ a: String, _ b: String) -> ComparisonResult {
    comparator.compare(a, b)
  }
}

/// Optional strings compared by a `String.StandardComparator`, `nil` first.
final class _OptionalStringKeyColumn<Element>: _ValueKeyColumn<Element, String?> {
  let comparator: String.StandardComparator

  init(
    _ keyPath: KeyPath<Element, String?>, _ comparator: String.StandardComparator,
    ascending: Bool
  ) {
    self.comparator = comparator
    super.init(keyPath, ascending: ascending)
  }

  override func order(_ a: String?, _ b: String?) -> ComparisonResult {
    switch (a, b) {
    case (nil, nil): .orderedSame
    case (nil, _): .orderedAscending
    case (_, nil): .orderedDescending
    case (let a?, let b?): comparator.compare(a, b)
    }
  }
}

/// A key path to a `Comparable` value type, opened to make its column.
protocol _ComparableKeyPath<Root> {
  associatedtype Root
  func _column(ascending: Bool) -> _KeyColumn<Root>?
}

extension KeyPath: _ComparableKeyPath where Value: Comparable {
  func _column(ascending: Bool) -> _KeyColumn<Root>? {
    // A class's `<` may read its live properties: such a key could not be kept.
    guard !(Value.self is AnyObject.Type) else { return nil }
    return _ComparableKeyColumn(self, ascending: ascending)
  }
}

/// A key path to an optional `Comparable` value type, opened to make its column.
protocol _OptionalComparableKeyPath<Root> {
  associatedtype Root
  func _optionalColumn(ascending: Bool) -> _KeyColumn<Root>?
}

/// An optional of a `Comparable` type, seen through a protocol (a constraint cannot name it).
protocol _ComparableOptional {
  associatedtype _Wrapped: Comparable
  var _value: _Wrapped? { get }
}

extension Optional: _ComparableOptional where Wrapped: Comparable {
  var _value: Wrapped? { self }
}

extension KeyPath: _OptionalComparableKeyPath where Value: _ComparableOptional {
  func _optionalColumn(ascending: Bool) -> _KeyColumn<Root>? {
    guard !(Value._Wrapped.self is AnyObject.Type),
      let keyPath = self as? KeyPath<Root, Value._Wrapped?>
    else { return nil }
    return _OptionalComparableKeyColumn(keyPath, ascending: ascending)
  }
}

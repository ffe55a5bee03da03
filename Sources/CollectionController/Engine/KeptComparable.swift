import Foundation

/// A `Comparable` type whose order depends on its value alone (no object it refers to, no
/// user code), so that a value read once can be kept and compared later: the standard number
/// types, `String`, `Character`, `Date` and `Decimal`. A struct or an enum of the user's may
/// compare through objects (`a.label.name < b.label.name`), which a kept value would not
/// follow, so descriptors on such types compare live elements (sort by a standard property of
/// theirs, such as `\.priority.rawValue`, to have it kept).
@usableFromInline
protocol _KeptComparable: Comparable {}

extension Int: _KeptComparable {}
extension Int8: _KeptComparable {}
extension Int16: _KeptComparable {}
extension Int32: _KeptComparable {}
extension Int64: _KeptComparable {}
extension UInt: _KeptComparable {}
extension UInt8: _KeptComparable {}
extension UInt16: _KeptComparable {}
extension UInt32: _KeptComparable {}
extension UInt64: _KeptComparable {}
extension Float: _KeptComparable {}
extension Double: _KeptComparable {}
extension String: _KeptComparable {}
extension Character: _KeptComparable {}
extension Date: _KeptComparable {}
extension Decimal: _KeptComparable {}

/// A key path to a kept `Comparable` type, opened to make its reader.
@usableFromInline
protocol _ComparableKeyPath<Root> {
  associatedtype Root
  /// A kept-key reader for `descriptor`, which sorts by this key path, or `nil` when it is not
  /// one made afresh from its key path, comparator and order.
  func _reader(matching descriptor: SortDescriptor<Root>) -> _KeyReader<Root>?
}

extension KeyPath: _ComparableKeyPath where Value: _KeptComparable {
  @inlinable
  func _reader(matching descriptor: SortDescriptor<Root>) -> _KeyReader<Root>? {
    guard SortDescriptor(_sendable(self), order: descriptor.order) == descriptor else { return nil }
    return _ClosureKeyReader(
      { $0[keyPath: self] }, _ComparableKeys<Value>(ascending: descriptor.order == .forward))
  }
}

/// A key path to an optional of a kept `Comparable` type, opened to make its reader.
@usableFromInline
protocol _OptionalComparableKeyPath<Root> {
  associatedtype Root
  /// As `_reader(matching:)`, for a key path to an optional value.
  func _optionalReader(matching descriptor: SortDescriptor<Root>) -> _KeyReader<Root>?
}

/// An optional of a kept `Comparable` type, seen through a protocol (a constraint cannot name
/// it).
@usableFromInline
protocol _ComparableOptional {
  associatedtype _Wrapped: _KeptComparable
}

extension Optional: _ComparableOptional where Wrapped: _KeptComparable {
  @usableFromInline
  typealias _Wrapped = Wrapped
}

extension KeyPath: _OptionalComparableKeyPath where Value: _ComparableOptional {
  @inlinable
  func _optionalReader(matching descriptor: SortDescriptor<Root>) -> _KeyReader<Root>? {
    guard let keyPath = self as? KeyPath<Root, Value._Wrapped?>,
      SortDescriptor(_sendable(keyPath), order: descriptor.order) == descriptor
    else { return nil }
    return _ClosureKeyReader(
      { $0[keyPath: keyPath] },
      _OptionalComparableKeys<Value._Wrapped>(ascending: descriptor.order == .forward))
  }
}

/// `keyPath` as `Sendable`, to make a `SortDescriptor` from it again. Safe: it was read from
/// a `SortDescriptor`, which only takes `Sendable` key paths (`Sendable` is a marker: the
/// representation is the same).
@inline(__always)
@inlinable
func _sendable<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> KeyPath<Root, Value> & Sendable {
  unsafeBitCast(keyPath, to: (KeyPath<Root, Value> & Sendable).self)
}

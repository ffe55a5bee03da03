import Foundation

/// A sort comparator that orders by a key path to a `Comparable` value with `<`, read through a
/// direct getter call: the fast way to sort a ``RelationController``.
///
/// A controller reads each element's sort keys once, when the element is placed, and compares
/// the values it kept. With `SortDescriptor`, each read goes through the standard library's
/// key-path projection (tens of nanoseconds, run-time generic code); a `SortKey` is made where
/// the key path is written, so the compiler turns its read into a direct call of the getter.
/// Use it like `SortDescriptor`:
///
/// ```swift
/// let albums = try RelationController(
///   \.albums, of: artist,
///   sortedBy: [SortKey(\.year), SortKey(\.title, order: .reverse)])
/// ```
///
/// The order is that of `<` on the values (the `SortDescriptor` of a non-`String` key path
/// compares the same way), ascending for `.forward`, with two definitions for values `<`
/// leaves unordered: a floating-point NaN orders after every number, and, for a key path to an
/// optional, `nil` orders before every value (as `SortDescriptor` orders it). `String` values
/// compare with `<` too: for a localized order (`.localizedStandard`), sort with a
/// `SortDescriptor` and its `String.StandardComparator`.
///
/// Two sort keys are equal when their key paths and orders are.
public struct SortKey<Compared>: SortComparator, Sendable {
  /// Whether values sort ascending (`.forward`) or descending (`.reverse`).
  public var order: SortOrder
  /// The key path, for equality, hashing and messages.
  @usableFromInline
  let _keyPath: PartialKeyPath<Compared> & Sendable
  /// The ascending order of two elements' values.
  @usableFromInline
  let _compare: @Sendable (Compared, Compared) -> ComparisonResult
  /// Makes the reader that keeps the values, in the given direction (`nil` for a value type
  /// whose values cannot be kept: see `_KeptComparable`; the controller then compares live
  /// elements through `compare(_:_:)`).
  @usableFromInline
  let _makeReader: @Sendable (_ ascending: Bool) -> _KeyReader<Compared>?

  @inlinable
  init<Value: _SortKeyValue>(
    _keyPath keyPath: KeyPath<Compared, Value> & Sendable,
    read: @escaping @Sendable (Compared) -> Value, order: SortOrder
  ) {
    self.order = order
    _keyPath = keyPath
    _compare = { a, b in _totalOrder(read(a), read(b)) }
    _makeReader = { ascending in _ClosureKeyReader.kept(read, ascending: ascending) }
  }

  @inlinable
  init<Value: _SortKeyValue>(
    _optionalKeyPath keyPath: KeyPath<Compared, Value?> & Sendable,
    read: @escaping @Sendable (Compared) -> Value?, order: SortOrder
  ) {
    self.order = order
    _keyPath = keyPath
    _compare = { a, b in _optionalOrder(read(a), read(b), by: _totalOrder) }
    _makeReader = { ascending in _ClosureKeyReader.keptOptional(read, ascending: ascending) }
  }

  /// Compares two elements by their values, in `order`.
  @inlinable
  public func compare(_ lhs: Compared, _ rhs: Compared) -> ComparisonResult {
    let result = _compare(lhs, rhs)
    guard order == .reverse, result != .orderedSame else { return result }
    return result == .orderedAscending ? .orderedDescending : .orderedAscending
  }

  /// Whether two sort keys have the same key path and order.
  @inlinable
  public static func == (lhs: SortKey, rhs: SortKey) -> Bool {
    lhs._keyPath == rhs._keyPath && lhs.order == rhs.order
  }

  /// Hashes the key path and the order.
  @inlinable
  public func hash(into hasher: inout Hasher) {
    hasher.combine(_keyPath)
    hasher.combine(order == .forward)
  }
}

extension SortKey: CustomStringConvertible {
  /// The key path and the order, as in `SortKey(\Album.year, order: .reverse)`.
  @inlinable
  public var description: String {
    "SortKey(\(_keyPath)\(order == .forward ? "" : ", order: .reverse"))"
  }
}

// The public initialisers spell out what a value must be, once for each compiler: from Swift 6.2,
// which checks it, a type whose metatype may cross isolation domains (`SendableMetatype`, as every
// type's does unless it is isolated); before, `Comparable` only. (A type alias would have to be
// public to appear in them.)
#if compiler(>=6.2)
  extension SortKey {
    /// A sort key on `keyPath`.
    ///
    /// - Parameters:
    ///   - keyPath: The value to sort by. Write the key path here, as a literal: the expression
    ///     is evaluated twice (once for the read, which then compiles into a direct getter call,
    ///     once for the key path the sort key keeps), so pass a literal or a variable, not a
    ///     call with side effects.
    ///   - order: `.forward` (the default) for ascending values, `.reverse` for descending.
    @_transparent
    public init<Value: Comparable & SendableMetatype>(
      _ keyPath: @autoclosure () -> KeyPath<Compared, Value> & Sendable,
      order: SortOrder = .forward
    ) {
      // Two evaluations: the optimiser turns a key-path literal's read into a getter call only
      // when the literal has no other use.
      self.init(_keyPath: keyPath(), read: _sortKeyReader(keyPath()), order: order)
    }

    /// A sort key on `keyPath`, a key path to an optional value: `nil` orders before every
    /// value.
    ///
    /// - Parameters:
    ///   - keyPath: The value to sort by. Write the key path here, as a literal: the expression
    ///     is evaluated twice (as for a key path to a value that is not optional), so pass a
    ///     literal or a variable, not a call with side effects.
    ///   - order: `.forward` (the default) for ascending values, `.reverse` for descending.
    @_transparent
    public init<Value: Comparable & SendableMetatype>(
      _ keyPath: @autoclosure () -> KeyPath<Compared, Value?> & Sendable,
      order: SortOrder = .forward
    ) {
      self.init(_optionalKeyPath: keyPath(), read: _sortKeyReader(keyPath()), order: order)
    }
  }
#else
  extension SortKey {
    /// A sort key on `keyPath`.
    ///
    /// - Parameters:
    ///   - keyPath: The value to sort by. Write the key path here, as a literal: the expression
    ///     is evaluated twice (once for the read, which then compiles into a direct getter call,
    ///     once for the key path the sort key keeps), so pass a literal or a variable, not a
    ///     call with side effects.
    ///   - order: `.forward` (the default) for ascending values, `.reverse` for descending.
    @_transparent
    public init<Value: Comparable>(
      _ keyPath: @autoclosure () -> KeyPath<Compared, Value> & Sendable,
      order: SortOrder = .forward
    ) {
      // Two evaluations: the optimiser turns a key-path literal's read into a getter call only
      // when the literal has no other use.
      self.init(_keyPath: keyPath(), read: _sortKeyReader(keyPath()), order: order)
    }

    /// A sort key on `keyPath`, a key path to an optional value: `nil` orders before every
    /// value.
    ///
    /// - Parameters:
    ///   - keyPath: The value to sort by. Write the key path here, as a literal: the expression
    ///     is evaluated twice (as for a key path to a value that is not optional), so pass a
    ///     literal or a variable, not a call with side effects.
    ///   - order: `.forward` (the default) for ascending values, `.reverse` for descending.
    @_transparent
    public init<Value: Comparable>(
      _ keyPath: @autoclosure () -> KeyPath<Compared, Value?> & Sendable,
      order: SortOrder = .forward
    ) {
      self.init(_optionalKeyPath: keyPath(), read: _sortKeyReader(keyPath()), order: order)
    }
  }
#endif

/// What a `SortKey`'s value must be: `Comparable`, and (from Swift 6.2, which checks it) a type
/// whose metatype may cross isolation domains, as every type's does unless it is isolated. The
/// public initialisers spell it out (see above).
#if compiler(>=6.2)
  @usableFromInline
  typealias _SortKeyValue = Comparable & SendableMetatype
#else
  @usableFromInline
  typealias _SortKeyValue = Comparable
#endif

/// A `@Sendable` closure that reads `keyPath`, formed where `keyPath` is a literal so that the
/// optimiser can turn the read into a direct getter call (as `Binding`'s `_reader`). Transparent,
/// so it is inlined into the public transparent initialisers before they are inlined into a client.
@usableFromInline
@_transparent
func _sortKeyReader<Root, Value>(
  _ keyPath: KeyPath<Root, Value> & Sendable
) -> @Sendable (Root) -> Value {
  { $0[keyPath: keyPath] }
}

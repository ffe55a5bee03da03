import Foundation

/// `Int` keys.
///
/// (In every store, `values` and `staged` skip run-time exclusivity checks, a large share of
/// each comparison: only the drainer touches them, and no access to them is open while user
/// code runs.)
@usableFromInline
final class _IntKeys: _KeyStoreBase, _TypedKeyStore {
  @inlinable
  override func compareStaged(with slot: Int32) -> ComparisonResult {
    _compareStaged(with: slot)
  }
  /// Where the store keeps its values (see `_KeyStoreBase`).
  @inlinable
  override func keptAddresses() -> _KeptColumn { _keptAddresses() }
  @usableFromInline
  let ascending: Bool
  @usableFromInline
  @exclusivity(unchecked)
  var values: ContiguousArray<Int> = []
  @usableFromInline
  @exclusivity(unchecked)
  var staged: Int?
  @inlinable
  init(ascending: Bool) { self.ascending = ascending }
  @inlinable
  func order(_ a: Int, _ b: Int) -> ComparisonResult { _totalOrder(a, b) }

  /// A counting sort when the values span a range no wider than a few times their count
  /// (years, ranks, small counts: O(n + range)); the general sort otherwise.
  @inlinable
  func sortStably(_ slots: inout [Int32]) {
    guard let range = _countingRange(slots) else {
      _sortStablyByPairs(&slots)
      return
    }
    values.withUnsafeBufferPointer { values in
      // A value's bucket: its distance from the end its direction starts at.
      slots = _stableCountingSort(
        slots, buckets: range.upperBound &- range.lowerBound &+ 1
      ) { slot in
        let value = values[Int(slot)]
        return ascending ? value &- range.lowerBound : range.upperBound &- value
      }
    }
  }

  /// The range of the values at `slots`, if a counting sort suits it (at most four buckets per
  /// slot, and more than a handful of slots).
  @inlinable
  func _countingRange(_ slots: [Int32]) -> ClosedRange<Int>? {
    guard slots.count > 64 else { return nil }
    return values.withUnsafeBufferPointer { values in
      var low = Int.max
      var high = Int.min
      for slot in slots {
        let value = values[Int(slot)]
        low = Swift.min(low, value)
        high = Swift.max(high, value)
      }
      let (width, overflow) = high.subtractingReportingOverflow(low)
      guard !overflow && width < 4 * slots.count else { return nil }
      return low...high
    }
  }
}

/// `Double` keys (NaN last, see `_totalOrder`).
@usableFromInline
final class _DoubleKeys: _KeyStoreBase, _TypedKeyStore {
  @inlinable
  override func compareStaged(with slot: Int32) -> ComparisonResult {
    _compareStaged(with: slot)
  }
  /// Where the store keeps its values (see `_KeyStoreBase`).
  @inlinable
  override func keptAddresses() -> _KeptColumn { _keptAddresses() }
  @usableFromInline
  let ascending: Bool
  @usableFromInline
  @exclusivity(unchecked)
  var values: ContiguousArray<Double> = []
  @usableFromInline
  @exclusivity(unchecked)
  var staged: Double?
  @inlinable
  init(ascending: Bool) { self.ascending = ascending }
  @inlinable
  func order(_ a: Double, _ b: Double) -> ComparisonResult { _totalOrder(a, b) }
}

/// `String` keys compared by `<`, as `SortDescriptor` compares strings without a comparator.
@usableFromInline
final class _StringKeys: _KeyStoreBase, _TypedKeyStore {
  @inlinable
  override func compareStaged(with slot: Int32) -> ComparisonResult {
    _compareStaged(with: slot)
  }
  /// Where the store keeps its values (see `_KeyStoreBase`).
  @inlinable
  override func keptAddresses() -> _KeptColumn { _keptAddresses() }
  @usableFromInline
  let ascending: Bool
  @usableFromInline
  @exclusivity(unchecked)
  var values: ContiguousArray<String> = []
  @usableFromInline
  @exclusivity(unchecked)
  var staged: String?
  @inlinable
  init(ascending: Bool) { self.ascending = ascending }
  @inlinable
  func order(_ a: String, _ b: String) -> ComparisonResult { _totalOrder(a, b) }
}

/// `Int?` keys, `nil` first.
@usableFromInline
final class _OptionalIntKeys: _KeyStoreBase, _TypedKeyStore {
  @inlinable
  override func compareStaged(with slot: Int32) -> ComparisonResult {
    _compareStaged(with: slot)
  }
  /// Where the store keeps its values (see `_KeyStoreBase`).
  @inlinable
  override func keptAddresses() -> _KeptColumn { _keptAddresses() }
  @usableFromInline
  let ascending: Bool
  @usableFromInline
  @exclusivity(unchecked)
  var values: ContiguousArray<Int?> = []
  @usableFromInline
  @exclusivity(unchecked)
  var staged: Int??
  @inlinable
  init(ascending: Bool) { self.ascending = ascending }
  @inlinable
  func order(_ a: Int?, _ b: Int?) -> ComparisonResult { _optionalOrder(a, b, by: _totalOrder) }
}

/// `String?` keys compared by `<`, `nil` first.
@usableFromInline
final class _OptionalStringKeys: _KeyStoreBase, _TypedKeyStore {
  @inlinable
  override func compareStaged(with slot: Int32) -> ComparisonResult {
    _compareStaged(with: slot)
  }
  /// Where the store keeps its values (see `_KeyStoreBase`).
  @inlinable
  override func keptAddresses() -> _KeptColumn { _keptAddresses() }
  @usableFromInline
  let ascending: Bool
  @usableFromInline
  @exclusivity(unchecked)
  var values: ContiguousArray<String?> = []
  @usableFromInline
  @exclusivity(unchecked)
  var staged: String??
  @inlinable
  init(ascending: Bool) { self.ascending = ascending }
  @inlinable
  func order(_ a: String?, _ b: String?) -> ComparisonResult {
    _optionalOrder(a, b, by: _totalOrder)
  }
}

/// `String` keys compared by a `String.StandardComparator`.
@usableFromInline
final class _StandardStringKeys: _KeyStoreBase, _TypedKeyStore {
  @inlinable
  override func compareStaged(with slot: Int32) -> ComparisonResult {
    _compareStaged(with: slot)
  }
  /// Where the store keeps its values (see `_KeyStoreBase`).
  @inlinable
  override func keptAddresses() -> _KeptColumn { _keptAddresses() }
  @usableFromInline
  let ascending: Bool
  @usableFromInline
  let comparator: String.StandardComparator
  @usableFromInline
  @exclusivity(unchecked)
  var values: ContiguousArray<String> = []
  @usableFromInline
  @exclusivity(unchecked)
  var staged: String?
  @inlinable
  init(_ comparator: String.StandardComparator, ascending: Bool) {
    self.comparator = comparator
    self.ascending = ascending
  }
  @inlinable
  func order(_ a: String, _ b: String) -> ComparisonResult { comparator.compare(a, b) }
}

/// `String?` keys compared by a `String.StandardComparator`, `nil` first.
@usableFromInline
final class _OptionalStandardStringKeys: _KeyStoreBase, _TypedKeyStore {
  @inlinable
  override func compareStaged(with slot: Int32) -> ComparisonResult {
    _compareStaged(with: slot)
  }
  /// Where the store keeps its values (see `_KeyStoreBase`).
  @inlinable
  override func keptAddresses() -> _KeptColumn { _keptAddresses() }
  @usableFromInline
  let ascending: Bool
  @usableFromInline
  let comparator: String.StandardComparator
  @usableFromInline
  @exclusivity(unchecked)
  var values: ContiguousArray<String?> = []
  @usableFromInline
  @exclusivity(unchecked)
  var staged: String??
  @inlinable
  init(_ comparator: String.StandardComparator, ascending: Bool) {
    self.comparator = comparator
    self.ascending = ascending
  }
  @inlinable
  func order(_ a: String?, _ b: String?) -> ComparisonResult {
    _optionalOrder(a, b, by: comparator.compare)
  }
}

/// Keys of any other `Comparable` value type (generic code: correct, slower).
@usableFromInline
final class _ComparableKeys<Value: Comparable>: _KeyStoreBase, _TypedKeyStore {
  @inlinable
  override func compareStaged(with slot: Int32) -> ComparisonResult {
    _compareStaged(with: slot)
  }
  /// Where the store keeps its values (see `_KeyStoreBase`).
  @inlinable
  override func keptAddresses() -> _KeptColumn { _keptAddresses() }
  @usableFromInline
  let ascending: Bool
  @usableFromInline
  @exclusivity(unchecked)
  var values: ContiguousArray<Value> = []
  @usableFromInline
  @exclusivity(unchecked)
  var staged: Value?
  @inlinable
  init(ascending: Bool) { self.ascending = ascending }
  @inlinable
  func order(_ a: Value, _ b: Value) -> ComparisonResult { _totalOrder(a, b) }
}

/// Optional keys of any other `Comparable` value type, `nil` first.
@usableFromInline
final class _OptionalComparableKeys<Wrapped: Comparable>: _KeyStoreBase, _TypedKeyStore {
  @inlinable
  override func compareStaged(with slot: Int32) -> ComparisonResult {
    _compareStaged(with: slot)
  }
  /// Where the store keeps its values (see `_KeyStoreBase`).
  @inlinable
  override func keptAddresses() -> _KeptColumn { _keptAddresses() }
  @usableFromInline
  let ascending: Bool
  @usableFromInline
  @exclusivity(unchecked)
  var values: ContiguousArray<Wrapped?> = []
  @usableFromInline
  @exclusivity(unchecked)
  var staged: Wrapped??
  @inlinable
  init(ascending: Bool) { self.ascending = ascending }
  @inlinable
  func order(_ a: Wrapped?, _ b: Wrapped?) -> ComparisonResult {
    _optionalOrder(a, b, by: _totalOrder)
  }
}

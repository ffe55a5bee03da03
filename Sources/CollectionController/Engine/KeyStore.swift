import Foundation

/// The class of every key store, through which a walk compares (see `_StagedComparison`).
@usableFromInline
class _KeyStoreBase {
  @inlinable
  init() {}

  /// Compares the staged value with the one kept at `slot`. Every store overrides it.
  @inlinable
  func compareStaged(with slot: Int32) -> ComparisonResult {
    preconditionFailure("CollectionController: \(type(of: self)) does not compare its keys")
  }

  /// Where the store keeps its values now (see `_KeptColumn`). Every store overrides it.
  @inlinable
  func keptAddresses() -> _KeptColumn {
    preconditionFailure(
      "CollectionController: \(type(of: self)) does not tell where it keeps its values")
  }
}

/// The kept values of one sort key, by slot: what comparisons use.
@usableFromInline
protocol _KeyStore: _KeyStoreBase {
  /// Compares the values kept at two slots.
  func compare(_ a: Int32, _ b: Int32) -> ComparisonResult
  /// Keeps the staged value at `slot`.
  func keepStaged(at slot: Int32)
  /// Forgets every value.
  func removeAll()
  /// Sorts slot numbers by the values kept at them, stably (a bulk load sorts by each key in
  /// turn, least significant first, so every comparison runs this store's own code).
  func sortStably(_ slots: inout [Int32])
  /// Asks for the value kept at `slot` to be brought into the cache, without waiting for it.
  func prefetch(_ slot: Int32)
}

/// A store of values of one type. The requirements of `_KeyStore` are implemented once below;
/// each concrete store's conformance gets them specialised for its type.
@usableFromInline
protocol _TypedKeyStore<Value>: _KeyStore {
  associatedtype Value
  /// Whether the order is ascending.
  var ascending: Bool { get }
  /// The kept value of every slot up to the highest used (freed slots keep a stale value).
  var values: ContiguousArray<Value> { get set }
  /// The value of the element being placed.
  var staged: Value? { get set }
  /// The ascending comparison of two values.
  func order(_ a: Value, _ b: Value) -> ComparisonResult
  /// Keeps `value` at `slot` (a requirement, so that a generic caller reaches the store's
  /// specialised implementation).
  func store(_ value: Value, at slot: Int32)
}

extension _TypedKeyStore {
  @inline(__always)
  @inlinable
  func _directed(_ result: ComparisonResult) -> ComparisonResult {
    if ascending || result == .orderedSame { return result }
    return result == .orderedAscending ? .orderedDescending : .orderedAscending
  }

  /// What each store's `compareStaged(with:)` override runs, specialised for its type.
  @inlinable
  func _compareStaged(with slot: Int32) -> ComparisonResult {
    // Safe: a placement stages its element before it compares.
    _directed(order(staged.unsafelyUnwrapped, values[Int(slot)]))
  }

  @inlinable
  func compare(_ a: Int32, _ b: Int32) -> ComparisonResult {
    _directed(order(values[Int(a)], values[Int(b)]))
  }

  @inlinable
  func keepStaged(at slot: Int32) {
    // Safe: a placement stages its element before it is kept (`_SortKeys` checks).
    store(staged.unsafelyUnwrapped, at: slot)
    staged = nil
  }

  @inlinable
  func removeAll() {
    values.removeAll()
    staged = nil
  }

  /// What each store's `keptAddresses()` override runs.
  @inlinable
  func _keptAddresses() -> _KeptColumn {
    _KeptColumn(values)
  }

  @inlinable
  func prefetch(_ slot: Int32) { _keptAddresses().prefetch(slot) }

  @inlinable
  func sortStably(_ slots: inout [Int32]) { _sortStablyByPairs(&slots) }

  /// Sorts pairs of a value and its slot by value, stably: each value is read once, and the
  /// sort then moves values with their slots through contiguous memory, where comparing slots
  /// read two values at random per comparison (a cache miss each at 10^6).
  @inlinable
  func _sortStablyByPairs(_ slots: inout [Int32]) {
    // Unchecked: `slots` are slots with kept values.
    var pairs = values._withUncheckedElements { values in
      slots.map { (value: values[Int($0)], slot: $0) }
    }
    // `sort` is stable.
    pairs.sort { a, b in _directed(order(a.value, b.value)) == .orderedAscending }
    for index in pairs.indices { slots[index] = pairs[index].slot }
  }

  @inlinable
  func store(_ value: Value, at slot: Int32) {
    let slot = Int(slot)
    if slot < values.count {
      values[slot] = value
    } else if slot == values.count {
      values.append(value)
    } else {
      // Slots freed before these keys were made (a reconfiguration) get this value too.
      values.append(contentsOf: repeatElement(value, count: slot - values.count + 1))
    }
  }
}

/// `slots` sorted stably by `bucket(slot)`, a number in `0..<buckets`: O(n + buckets).
@inlinable
func _stableCountingSort(
  _ slots: [Int32], buckets: Int, bucket: (Int32) -> Int
) -> [Int32] {
  var starts = [Int](repeating: 0, count: buckets + 1)
  for slot in slots { starts[bucket(slot) + 1] += 1 }
  for index in starts.indices.dropLast() { starts[index + 1] += starts[index] }
  var sorted = [Int32](repeating: 0, count: slots.count)
  for slot in slots {
    let bucket = bucket(slot)
    sorted[starts[bucket]] = slot
    starts[bucket] += 1
  }
  return sorted
}

/// The ascending order of two `Comparable` values, as `ComparableComparator` gives it, except
/// that a value not equal to itself (a floating-point NaN), which `<` leaves unordered, orders
/// after every value that is: the kept keys are then a total order, so a NaN key gets one
/// defined place instead of one that depends on the order of the edits.
@inline(__always)
@inlinable
func _totalOrder<Value: Comparable>(_ a: Value, _ b: Value) -> ComparisonResult {
  if a < b { return .orderedAscending }
  if b < a { return .orderedDescending }
  if a == b { return .orderedSame }
  let (aUnordered, bUnordered) = (a != a, b != b)
  if aUnordered == bUnordered { return .orderedSame }
  return aUnordered ? .orderedDescending : .orderedAscending
}

/// The order of two optionals, `nil` first (as `SortDescriptor` orders them).
@inline(__always)
@inlinable
func _optionalOrder<Wrapped>(
  _ a: Wrapped?, _ b: Wrapped?, by order: (Wrapped, Wrapped) -> ComparisonResult
) -> ComparisonResult {
  switch (a, b) {
  case (nil, nil): .orderedSame
  case (nil, _): .orderedAscending
  case (_, nil): .orderedDescending
  case (let a?, let b?): order(a, b)
  }
}

extension _IntKeys {
  /// A counting sort when the values span a range no wider than a few times their count
  /// (years, ranks, small counts: O(n + range)); the general sort otherwise.
  @inlinable
  func sortStably(_ slots: inout [Int32]) {
    guard let range = _countingRange(slots) else {
      _sortStablyByPairs(&slots)
      return
    }
    // Unchecked: `slots` are slots with kept values.
    values._withUncheckedElements { values in
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
    // Unchecked: `slots` are slots with kept values.
    return values._withUncheckedElements { values in
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

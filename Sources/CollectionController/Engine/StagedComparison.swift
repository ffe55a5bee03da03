import Foundation

// The staged comparison: how a walk compares the staged keys with those kept at a slot, and the
// stores whose columns it reads. What is unchecked here: every store's `values` and `staged`
// skip the run-time exclusivity checks, a large share of each comparison (a comparison is two
// reads of them and a compare).
//
// The invariant: **no access to a store's `values` or `staged` overlaps another**: only the
// index's writer calls a store, each of a store's methods reads or writes them and returns
// without calling out (no user code, no other store), and no caller holds an access to them
// open across a call. Debug builds (`COLLECTION_CONTROLLER_INTERNAL_CHECKS`) check every
// access, and trap on an overlapping one ("Simultaneous accesses"); release builds trust them.
//
// The benchmark rows that name it (`BindingBenchmarks --relation`): moves, limits and sorted
// inserts (each comparison of a descent), and builds (each comparison of a bulk load's sort).

/// How a walk (an insertion point's descent) compares the staged keys with those kept at a slot.
///
/// - Important: It holds its first two stores unretained, so it must not outlive the
///   `_SortKeys` it came from: use it within one borrow of the (noncopyable) index that holds
///   those keys, as `insertionPoint` does.
///
/// The first two stores are called through their common class, `_KeyStoreBase`, unretained (the
/// `_SortKeys` whose `stores` hold them outlives every walk): one virtual call each. A call
/// through an `any _KeyStore` existential retains and releases the store around it, even from
/// a local: four atomic operations per comparison. An `unowned(unsafe)` reference does not
/// help, because loading one makes a strong copy. The calls are written out rather than looped
/// over, and take no closure: a move runs little more than its comparisons, so a loop's or a
/// closure's overhead in each of them shows in every move.
@usableFromInline
struct _StagedComparison {
  /// The first two stores, unretained: the `_SortKeys` whose `stores` hold them outlives the walk.
  @usableFromInline
  let first: Unmanaged<_KeyStoreBase>?
  @usableFromInline
  let second: Unmanaged<_KeyStoreBase>?
  @usableFromInline
  let others: ContiguousArray<any _KeyStore>

  @inlinable
  init(_ stores: ContiguousArray<any _KeyStore>) {
    first = stores.first.map { .passUnretained($0) }
    second = stores.count > 1 ? .passUnretained(stores[1]) : nil
    others = ContiguousArray(stores.dropFirst(2))
  }

  /// Compares the staged keys with those kept at `slot`.
  @inline(__always)
  @inlinable
  func compare(with slot: Int32) -> ComparisonResult {
    guard let first else { return .orderedSame }
    let result = first._withUnsafeGuaranteedRef { $0.compareStaged(with: slot) }
    guard result == .orderedSame, let second else { return result }
    let next = second._withUnsafeGuaranteedRef { $0.compareStaged(with: slot) }
    guard next == .orderedSame, !others.isEmpty else { return next }
    for store in others {
      let result = store.compareStaged(with: slot)
      if result != .orderedSame { return result }
    }
    return .orderedSame
  }

  /// Where the first two stores keep their values now, for a walk to ask for them ahead of
  /// its comparisons. Valid until a store keeps a value (which may move its values), so for
  /// one walk: a walk compares with the staged keys and keeps none.
  @inlinable
  func addresses() -> _KeptAddresses {
    _KeptAddresses(
      first: first?._withUnsafeGuaranteedRef { $0.keptAddresses() } ?? .none,
      second: second?._withUnsafeGuaranteedRef { $0.keptAddresses() } ?? .none)
  }
}


/// `Int` keys.
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  var values: ContiguousArray<Int> = []
  @usableFromInline
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  var staged: Int?
  @inlinable
  init(ascending: Bool) { self.ascending = ascending }
  @inlinable
  func order(_ a: Int, _ b: Int) -> ComparisonResult { _totalOrder(a, b) }
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  var values: ContiguousArray<Double> = []
  @usableFromInline
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  var values: ContiguousArray<String> = []
  @usableFromInline
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  var values: ContiguousArray<Int?> = []
  @usableFromInline
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  var values: ContiguousArray<String?> = []
  @usableFromInline
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  var values: ContiguousArray<String> = []
  @usableFromInline
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  var values: ContiguousArray<String?> = []
  @usableFromInline
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  var values: ContiguousArray<Value> = []
  @usableFromInline
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  var values: ContiguousArray<Wrapped?> = []
  @usableFromInline
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  var staged: Wrapped??
  @inlinable
  init(ascending: Bool) { self.ascending = ascending }
  @inlinable
  func order(_ a: Wrapped?, _ b: Wrapped?) -> ComparisonResult {
    _optionalOrder(a, b, by: _totalOrder)
  }
}

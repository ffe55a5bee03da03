import Foundation

// The staged comparison: how a walk compares the staged keys with those kept at a slot, and the
// stores whose columns it reads. What is unchecked here: every store's `values` and `staged`
// skip the run-time exclusivity checks, a large share of each comparison (a comparison is two
// reads of them and a compare); and `_StagedComparison` calls its first two stores unretained.
//
// The invariant: **no access to a store's `values` or `staged` overlaps another, and every
// store outlives the comparisons that call it**: only the index's writer calls a store, each of
// a store's methods reads or writes them and returns without calling out (no user code, no
// other store), and no caller holds an access to them open across a call; a `_StagedComparison`
// is used only through the `_SortKeys` that made it, whose `stores` hold its stores. Debug
// builds (`COLLECTION_CONTROLLER_INTERNAL_CHECKS`) check every access, and trap on an
// overlapping one ("Simultaneous accesses"), and a comparison holds its stores strongly there
// too, trapping when it is used after its `_SortKeys` let them go; release builds trust both.
//
// The benchmark rows that name it (`BindingBenchmarks --relation`): moves, limits and sorted
// inserts (each comparison of a descent), and builds (each comparison of a bulk load's sort).

/// How a walk (an insertion point's descent) compares the staged keys with those kept at a slot.
///
/// - Important: It holds its first two stores unretained, so it must not outlive the
///   `_SortKeys` it came from (see the file's invariant).
///
/// The first two stores are called through their common class, `_KeyStoreBase`, unretained: one
/// virtual call each. A call through an `any _KeyStore` existential retains and releases the
/// store around it, even from a local: four atomic operations per comparison; so does a strong
/// reference copied out of the comparison, and loading an `unowned(unsafe)` reference makes a
/// strong copy. The calls are written out rather than looped over, and take no closure: a move
/// runs little more than its comparisons, so a loop's or a closure's overhead in each of them
/// shows in every move.
@usableFromInline
struct _StagedComparison {
  /// The first store, unretained (`nil` without stores).
  @usableFromInline
  let first: Unmanaged<_KeyStoreBase>?
  /// The second store, unretained (`nil` with fewer than two).
  @usableFromInline
  let second: Unmanaged<_KeyStoreBase>?
  #if COLLECTION_CONTROLLER_INTERNAL_CHECKS
    /// The first two stores, watched: a comparison used after they went traps (debug builds).
    @usableFromInline
    let _watched: (first: Weak?, second: Weak?)

    /// A weak reference to a store.
    @usableFromInline
    struct Weak {
      /// The store, while it is alive.
      @usableFromInline
      weak var store: _KeyStoreBase?

      /// A weak reference to `store`.
      @inlinable
      init(_ store: _KeyStoreBase) { self.store = store }
    }

    /// Traps unless the store `weak` watches is alive (see the file's invariant).
    @inlinable
    static func _checkAlive(_ weak: Weak?) {
      precondition(
        weak == nil || weak?.store != nil,
        "CollectionController: a staged comparison was used after its key stores went")
    }
  #endif
  /// The stores after the first two.
  @usableFromInline
  let others: ContiguousArray<any _KeyStore>

  /// The comparison of `stores`, in order.
  @inlinable
  init(_ stores: ContiguousArray<any _KeyStore>) {
    first = stores.first.map { .passUnretained($0) }
    second = stores.count > 1 ? .passUnretained(stores[1]) : nil
    #if COLLECTION_CONTROLLER_INTERNAL_CHECKS
      _watched = (stores.first.map { Weak($0) }, stores.count > 1 ? Weak(stores[1]) : nil)
    #endif
    others = ContiguousArray(stores.dropFirst(2))
  }

  /// Compares the staged keys with those kept at `slot`.
  @inline(__always)
  @inlinable
  func compare(with slot: Int32) -> ComparisonResult {
    #if COLLECTION_CONTROLLER_INTERNAL_CHECKS
      Self._checkAlive(_watched.first)
      Self._checkAlive(_watched.second)
    #endif
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
    #if COLLECTION_CONTROLLER_INTERNAL_CHECKS
      Self._checkAlive(_watched.first)
      Self._checkAlive(_watched.second)
    #endif
    return _KeptAddresses(
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
  var values: ContiguousArray<Int> = []
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
  var values: ContiguousArray<Double> = []
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
  var values: ContiguousArray<String> = []
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
  var values: ContiguousArray<Int?> = []
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
  var values: ContiguousArray<String?> = []
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
  var values: ContiguousArray<String> = []
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
  var values: ContiguousArray<String?> = []
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
  var values: ContiguousArray<Value> = []
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
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
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
  var values: ContiguousArray<Wrapped?> = []
  #if !COLLECTION_CONTROLLER_INTERNAL_CHECKS
    @exclusivity(unchecked)
  #endif
  @usableFromInline
  var staged: Wrapped??
  @inlinable
  init(ascending: Bool) { self.ascending = ascending }
  @inlinable
  func order(_ a: Wrapped?, _ b: Wrapped?) -> ComparisonResult {
    _optionalOrder(a, b, by: _totalOrder)
  }
}

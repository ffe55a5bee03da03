import Foundation

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

import Binding
import Foundation

/// The sort keys of an ordered index's elements, read once and kept by slot, so that a
/// comparison compares two kept values with specialised code instead of reading both elements
/// through key paths and an existential comparator.
///
/// Keys are read when an element is placed (``stage(_:)``, then ``keepStaged(at:for:)`` when
/// it is inserted) and only then: an element's keys change only when it is placed again, so the
/// index is always ordered by its kept keys, never by a mix of kept and live values.
///
/// Built by ``make(_:)`` from `SortDescriptor`s that name a key path to a standard value type
/// (see `_KeptComparable`) or an optional of one, compare by `Comparable` or by a
/// `String.StandardComparator` (the two comparisons `SortDescriptor` offers), and were not
/// changed after they were made, read through their key paths; otherwise the controller
/// compares live elements with the comparators (the general path). The values of the common
/// key types (`Int`, `Double`, `String`, `Int?` and `String?`) are kept in stores written for
/// their type, so that comparing them runs no generic code; other types (`Double?` included)
/// are kept in a generic store, which is made at run time for the key path's value type and so
/// runs unspecialised.
@usableFromInline
final class _SortKeys<Element> {
  /// What reads each key of an element, one per descriptor, first decides.
  @usableFromInline
  let readers: [_KeyReader<Element>]
  /// Where each key is kept, parallel to `readers`.
  @usableFromInline
  let stores: ContiguousArray<any _KeyStore>
  /// The stores, for walks that compare the staged keys (see `_StagedComparison`).
  @usableFromInline
  let stagedComparison: _StagedComparison
  /// The identity of the staged element, checked when it is kept.
  @usableFromInline
  var _staged: ObjectIdentifier?

  @inlinable
  init(_ readers: [_KeyReader<Element>]) {
    self.readers = readers
    stores = ContiguousArray(readers.map(\.keys))
    stagedComparison = _StagedComparison(stores)
  }

  /// Kept keys for `comparators`, or `nil` when one of them cannot be specialised (see above).
  @inlinable
  static func make(_ comparators: [any SortComparator<Element>]) -> _SortKeys? {
    var readers: [_KeyReader<Element>] = []
    for comparator in comparators {
      guard let reader = _reader(comparator) else { return nil }
      readers.append(reader)
    }
    return _SortKeys(readers)
  }

  /// Reads `element`'s keys as the element about to be placed.
  @inlinable
  func stage(_ element: Element) where Element: AnyObject {
    _forEachReader { $0.stage(element) }
    _staged = ObjectIdentifier(element)
  }

  /// Keeps the staged keys at `slot`, the slot `element` was inserted into.
  @inlinable
  func keepStaged(at slot: Int32, for element: Element) where Element: AnyObject {
    precondition(
      _staged == ObjectIdentifier(element), "the element inserted is not the one staged")
    _forEachStore { $0.keepStaged(at: slot) }
    _staged = nil
  }

  /// Asks for the keys kept at `slot` to be brought into the cache, without waiting for them.
  @inlinable
  func prefetch(_ slot: Int32) {
    _forEachStore { $0.prefetch(slot) }
  }

  /// Reads `element`'s keys and keeps them at `slot` (a bulk load).
  @inlinable
  func keep(_ element: Element, at slot: Int32) {
    _forEachReader { $0.keep(element, at: slot) }
  }

  /// Compares the keys kept at two slots (for invariant checks: it calls every store through
  /// its existential, retaining it).
  @inlinable
  func compare(_ a: Int32, _ b: Int32) -> ComparisonResult {
    for store in stores {
      let result = store.compare(a, b)
      if result != .orderedSame { return result }
    }
    return .orderedSame
  }

  /// Reads every key of `element`, keeping nothing (so that observing the read observes what
  /// the sort reads).
  @inlinable
  func read(_ element: Element) {
    _forEachReader { $0.read(element) }
  }

  /// Calls `body` with each reader, in order, borrowed from the array: `for reader in readers`
  /// retains the array and each reader, and a move walks the readers three times.
  @inline(__always)
  @inlinable
  func _forEachReader(_ body: (_KeyReader<Element>) -> Void) {
    // Unchecked: the indices are the view's own.
    readers._withUncheckedElements { readers in
      for index in readers.indices { body(readers[index]) }
    }
  }

  /// Calls `body` with each store, in order, borrowed from the array (see `_forEachReader`).
  @inline(__always)
  @inlinable
  func _forEachStore(_ body: (any _KeyStore) -> Void) {
    // Unchecked: the indices are the view's own.
    stores._withUncheckedElements { stores in
      for index in stores.indices { body(stores[index]) }
    }
  }

  /// Forgets every kept key.
  @inlinable
  func removeAll() {
    for store in stores { store.removeAll() }
  }

  /// Sorts slot numbers (already in the order that decides ties) by the kept keys, stably:
  /// one sort per key, least significant first.
  @inlinable
  func sortStably(_ slots: inout [Int32]) {
    for store in stores.reversed() { store.sortStably(&slots) }
  }

  /// A reader for `comparator` if it is a `SortDescriptor` that can be specialised.
  ///
  /// Only a descriptor equal to one made afresh with its key path, comparator and order is
  /// kept: Foundation fixes a descriptor's order into its comparison when the descriptor is
  /// made, so one whose `order` was changed afterwards compares in its original order (while
  /// `order` says otherwise), and such a descriptor is compared live, as `compare` does.
  @inlinable
  static func _reader(
    _ comparator: any SortComparator<Element>
  ) -> _KeyReader<Element>? {
    guard let descriptor = comparator as? SortDescriptor<Element>,
      let keyPath = descriptor.keyPath
    else { return nil }
    let order = descriptor.order
    let ascending = order == .forward
    /// A reader keeping the key in `store` if the key path's value is the store's type and the
    /// descriptor is the one `fresh` makes from it.
    func reader<Store: _TypedKeyStore>(
      _ store: @autoclosure () -> Store,
      fresh: (KeyPath<Element, Store.Value> & Sendable) -> SortDescriptor<Element>
    ) -> _KeyReader<Element>? {
      guard let typed = keyPath as? KeyPath<Element, Store.Value>,
        fresh(_sendable(typed)) == descriptor
      else { return nil }
      return _ClosureKeyReader({ $0[keyPath: typed] }, store())
    }
    if let strings = descriptor.stringComparator {
      // The descriptor applies its own order on top of its string comparator's.
      var forward = strings
      forward.order = .forward
      return reader(_StandardStringKeys(forward, ascending: ascending)) {
        SortDescriptor($0, comparator: strings, order: order)
      }
        ?? reader(_OptionalStandardStringKeys(forward, ascending: ascending)) {
          SortDescriptor($0, comparator: strings, order: order)
        }
    }
    if let kept = reader(
      _IntKeys(ascending: ascending), fresh: { SortDescriptor($0, order: order) })
      ?? reader(_StringKeys(ascending: ascending), fresh: { SortDescriptor($0, order: order) })
      ?? reader(_DoubleKeys(ascending: ascending), fresh: { SortDescriptor($0, order: order) })
      ?? reader(_OptionalIntKeys(ascending: ascending), fresh: { SortDescriptor($0, order: order) })
      ?? reader(
        _OptionalStringKeys(ascending: ascending), fresh: { SortDescriptor($0, order: order) })
    {
      return kept
    }
    if let opener = keyPath as? any _ComparableKeyPath<Element> {
      return opener._reader(matching: descriptor)
    }
    if let opener = keyPath as? any _OptionalComparableKeyPath<Element> {
      return opener._optionalReader(matching: descriptor)
    }
    return nil
  }
}

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
/// Built by ``make(_:)`` from `SortKey`s on key paths to standard value types (see
/// `_KeptComparable`) or optionals of them, read through their closures, and from
/// `SortDescriptor`s that name such a key path, compare by `Comparable` or by a
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
    readers.withUnsafeBufferPointer { readers in
      for index in readers.indices { body(readers[index]) }
    }
  }

  /// Calls `body` with each store, in order, borrowed from the array (see `_forEachReader`).
  @inline(__always)
  @inlinable
  func _forEachStore(_ body: (any _KeyStore) -> Void) {
    stores.withUnsafeBufferPointer { stores in
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

  /// A reader for `comparator` if it is a `SortKey` on a kept type, or a `SortDescriptor` that
  /// can be specialised.
  ///
  /// Only a descriptor equal to one made afresh with its key path, comparator and order is
  /// kept: Foundation fixes a descriptor's order into its comparison when the descriptor is
  /// made, so one whose `order` was changed afterwards compares in its original order (while
  /// `order` says otherwise), and such a descriptor is compared live, as `compare` does.
  @inlinable
  static func _reader(
    _ comparator: any SortComparator<Element>
  ) -> _KeyReader<Element>? {
    if let key = comparator as? SortKey<Element> { return key._makeReader(key.order == .forward) }
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

/// Reads one key of elements into its store (see `_SortKeys`).
@usableFromInline
class _KeyReader<Element> {
  /// Where the key is kept.
  @usableFromInline
  let keys: any _KeyStore

  @inlinable
  init(keys: any _KeyStore) { self.keys = keys }

  @inlinable
  func stage(_ element: Element) { fatalError("abstract") }
  @inlinable
  func keep(_ element: Element, at slot: Int32) { fatalError("abstract") }
  @inlinable
  func read(_ element: Element) { fatalError("abstract") }
}

/// Reads a key of one type through a closure: a ``SortKey``'s, which calls the getter directly,
/// or one reading a `SortDescriptor`'s key path. Its operations are closures made in its
/// initialiser, which runs specialised for the key's type: overrides of a generic class would
/// run its generic code.
@usableFromInline
final class _ClosureKeyReader<Element>: _KeyReader<Element> {
  @usableFromInline
  let _stage: (Element) -> Void
  @usableFromInline
  let _keep: (Element, Int32) -> Void
  @usableFromInline
  let _read: (Element) -> Void

  @inlinable
  init<Store: _TypedKeyStore>(_ read: @escaping (Element) -> Store.Value, _ store: Store) {
    _stage = { store.staged = read($0) }
    _keep = { store.store(read($0), at: $1) }
    _read = { _ = read($0) }
    super.init(keys: store)
  }

  @inlinable
  override func stage(_ element: Element) { _stage(element) }
  @inlinable
  override func keep(_ element: Element, at slot: Int32) { _keep(element, slot) }
  @inlinable
  override func read(_ element: Element) { _read(element) }

  /// A reader keeping the values `read` reads, in the store written for their type, or `nil`
  /// when they cannot be kept (a type that is not `_KeptComparable`).
  @inlinable
  static func kept<Value: Comparable>(
    _ read: @escaping @Sendable (Element) -> Value, ascending: Bool
  ) -> _KeyReader<Element>? {
    if let read = read as? @Sendable (Element) -> Int {
      return _ClosureKeyReader(read, _IntKeys(ascending: ascending))
    }
    if let read = read as? @Sendable (Element) -> String {
      return _ClosureKeyReader(read, _StringKeys(ascending: ascending))
    }
    if let read = read as? @Sendable (Element) -> Double {
      return _ClosureKeyReader(read, _DoubleKeys(ascending: ascending))
    }
    guard Value.self is any _KeptComparable.Type else { return nil }
    return _ClosureKeyReader(read, _ComparableKeys<Value>(ascending: ascending))
  }

  /// `kept(_:ascending:)` for optional values (`nil` first).
  @inlinable
  static func keptOptional<Wrapped: Comparable>(
    _ read: @escaping @Sendable (Element) -> Wrapped?, ascending: Bool
  ) -> _KeyReader<Element>? {
    if let read = read as? @Sendable (Element) -> Int? {
      return _ClosureKeyReader(read, _OptionalIntKeys(ascending: ascending))
    }
    if let read = read as? @Sendable (Element) -> String? {
      return _ClosureKeyReader(read, _OptionalStringKeys(ascending: ascending))
    }
    guard Wrapped.self is any _KeptComparable.Type else { return nil }
    return _ClosureKeyReader(read, _OptionalComparableKeys<Wrapped>(ascending: ascending))
  }
}

/// How a walk (an insertion point's descent) compares the staged keys with those kept at a slot.
///
/// - Important: It holds its first two stores unretained, so it must not outlive the
///   `_SortKeys` it came from: use it within one borrow of the (noncopyable) index that holds
///   those keys, as `insertionPoint` does.
///
/// The first two stores are called through their common class, `_KeyStoreBase`, unretained (the
/// `_SortKeys` whose `stores` hold them outlives every walk): one virtual call each. Called
/// through their `any _KeyStore` existentials, they were retained and released around every
/// call, even from a local: four atomic operations per comparison. An `unowned(unsafe)`
/// reference does not help, because loading one makes a strong copy. The calls are written out
/// rather than looped over: a loop over all the stores made a move 9% slower, and one walk
/// taking a closure 6% (`--profile-relation`, user time, 7 runs each).
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

/// Where a store keeps its values (or an index its slots' sequences), for prefetches: the
/// library never reads through it.
@usableFromInline
struct _KeptColumn {
  /// The address of the value kept at slot 0, as a number.
  @usableFromInline
  let base: UInt
  /// The distance in bytes from one slot's value to the next.
  @usableFromInline
  let stride: Int
  /// How many slots have a value.
  @usableFromInline
  let count: Int

  /// A column of `count` values from `base`, `stride` bytes apart.
  @inlinable
  init(base: UInt, stride: Int, count: Int) {
    self.base = base
    self.stride = stride
    self.count = count
  }

  /// No values.
  @inlinable
  static var none: _KeptColumn { _KeptColumn(base: 0, stride: 0, count: 0) }

  /// Asks for the value kept at `slot` to be brought into the cache, without waiting for it.
  @inline(__always)
  @inlinable
  func prefetch(_ slot: Int32) {
    let slot = Int(slot)
    // Unsigned: a negative slot is out of range too.
    guard UInt(bitPattern: slot) < UInt(bitPattern: count) else { return }
    // A prefetch never faults, whatever the address, and reads nothing into the program.
    _cachePrefetch(UnsafeRawPointer(bitPattern: base &+ UInt(bitPattern: slot &* stride)))
  }
}

/// Where the first two stores of a walk keep their values (see `_StagedComparison.addresses()`),
/// for a descent's prefetches (see `_OrderedIndex._descend`).
///
/// Taken once per walk: asking each store through a virtual call per prefetch cost more than
/// the prefetches saved (a move 10% slower at 10^4 and 5% at 10^6 than with no prefetch, where
/// these addresses made it 1-2% and 6% faster: `--profile-relation`, 12 rounds interleaved in
/// one process).
@usableFromInline
struct _KeptAddresses {
  /// Where the first store keeps its values (`.none` if there is no store).
  @usableFromInline
  let first: _KeptColumn
  /// Where the second store keeps its values (`.none` if there is no second store).
  @usableFromInline
  let second: _KeptColumn

  /// The addresses of the first two stores.
  @inlinable
  init(first: _KeptColumn, second: _KeptColumn) {
    self.first = first
    self.second = second
  }

  /// Asks for the first two keys kept at `slot` (the later ones are rarely compared).
  @inline(__always)
  @inlinable
  func prefetch(_ slot: Int32) {
    first.prefetch(slot)
    second.prefetch(slot)
  }
}

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
    values.withUnsafeBufferPointer { values in
      _KeptColumn(
        base: UInt(bitPattern: values.baseAddress), stride: MemoryLayout<Value>.stride,
        count: values.count)
    }
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
    var pairs = values.withUnsafeBufferPointer { values in
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

/// `Int` keys.
///
/// (In every store, `values` and `staged` skip run-time exclusivity checks, which were a tenth
/// of each comparison: only the drainer touches them, and no access to them is open while
/// user code runs.)
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

/// `keyPath` as `Sendable`, to make a `SortDescriptor` from it again. Safe: it was read from
/// a `SortDescriptor`, which only takes `Sendable` key paths (`Sendable` is a marker: the
/// representation is the same).
@inline(__always)
@inlinable
func _sendable<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> KeyPath<Root, Value> & Sendable {
  unsafeBitCast(keyPath, to: (KeyPath<Root, Value> & Sendable).self)
}

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

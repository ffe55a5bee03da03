import Binding

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
/// Taken once per walk: asking each store through a virtual call per prefetch costs more than
/// the prefetch saves, while reading an address from here costs a multiplication.
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

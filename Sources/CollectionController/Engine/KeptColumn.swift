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

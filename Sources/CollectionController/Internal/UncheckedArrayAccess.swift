import Binding

// Unchecked access to an array's storage: the one place outside the relation controller's state
// where this module reaches an array's elements through their address. What is here:
//
// - `_withUncheckedElements` / `_withUncheckedMutableElements`: a view of the elements whose
//   subscript skips the bounds check (and, mutable, reaches an element in place, without a
//   uniqueness check or a copy of it: what a member's field update and a key's comparison pay
//   for per access otherwise);
// - `_prefetchElement(at:)`, `_prefetchElements(from:count:)` and `_KeptColumn`: cache hints
//   for elements a descent or a lookup reads next;
// - `init(_uninitializedCount:initializingWith:)`: an array written through its buffer;
// - `_bufferIdentity(_:)`: an array buffer's address, compared, never followed.
//
// The invariant, for every use: **an index read or written through a view is within the
// array's bounds, and a view or a buffer is used only inside the closure it is lent to, while
// nothing else accesses the array** (so the array can neither move nor be freed under it); an
// uninitialised array's initialiser initialises exactly the elements it counts, from the start.
// Each caller says in one line why its indices are in range. Debug builds check the indices
// (`_checkUnchecked`) and trap naming the violation; release builds trust them. Prefetches and
// buffer identities never read through an address, so no index of theirs can fault.
//
// The benchmark rows that name it (`BindingBenchmarks --relation`): moves and sorted inserts
// (a descent's key comparisons and prefetches), churn (the member table's recount), and
// builds (the key stores' sorts).

/// Traps naming the violation unless `index` is within `0..<count`, in debug builds only: the
/// check of every unchecked access (see the file's invariant).
@inline(__always)
@inlinable
func _checkUnchecked(_ index: Int, _ count: Int) {
  assert(
    UInt(bitPattern: index) < UInt(bitPattern: count),
    "CollectionController: unchecked index \(index) outside 0..<\(count)")
}

/// An array's elements, read without bounds checks (debug builds check them); valid only
/// inside the closure it is lent to (see the file's invariant).
@usableFromInline
@frozen
struct _UncheckedElements<Element> {
  /// The address of the first element (`nil` for no elements).
  @usableFromInline
  let _base: UnsafePointer<Element>?
  /// The number of elements.
  @usableFromInline
  let count: Int

  /// The elements of `buffer`.
  @inlinable
  @inline(__always)
  init(_ buffer: UnsafeBufferPointer<Element>) {
    _base = buffer.baseAddress
    count = buffer.count
  }

  /// The valid indices.
  @inlinable
  var indices: Range<Int> { 0..<count }

  /// The element at `index`, which the caller knows is in range; borrowed, not copied.
  @inlinable
  subscript(index: Int) -> Element {
    @inline(__always)
    unsafeAddress {
      _checkUnchecked(index, count)
      return _base.unsafelyUnwrapped + index
    }
  }
}

/// An array's elements, read and written in place without bounds or uniqueness checks (debug
/// builds check the bounds); valid only inside the closure it is lent to (see the file's
/// invariant).
@usableFromInline
@frozen
struct _UncheckedMutableElements<Element> {
  /// The address of the first element (`nil` for no elements).
  @usableFromInline
  let _base: UnsafeMutablePointer<Element>?
  /// The number of elements.
  @usableFromInline
  let count: Int

  /// The elements of `buffer`.
  @inlinable
  @inline(__always)
  init(_ buffer: UnsafeMutableBufferPointer<Element>) {
    _base = buffer.baseAddress
    count = buffer.count
  }

  /// The valid indices.
  @inlinable
  var indices: Range<Int> { 0..<count }

  /// The same elements, read-only.
  @inlinable
  var readOnly: _UncheckedElements<Element> {
    _UncheckedElements(UnsafeBufferPointer(start: _base, count: count))
  }

  /// The element at `index`, which the caller knows is in range, where it is stored: a
  /// mutating method called on it (through optional chaining too) works in place.
  @inlinable
  subscript(index: Int) -> Element {
    @inline(__always)
    unsafeAddress {
      _checkUnchecked(index, count)
      return UnsafePointer(_base.unsafelyUnwrapped + index)
    }
    @inline(__always)
    nonmutating unsafeMutableAddress {
      _checkUnchecked(index, count)
      return _base.unsafelyUnwrapped + index
    }
  }
}

/// The address of an array's buffer, as its identity while the array is alive: compared,
/// never followed (`nil` for an array without a buffer of its own).
@usableFromInline
typealias _BufferIdentity = UnsafeRawPointer?

/// The address of an array's buffer (its identity while the array is alive).
@inlinable
func _bufferIdentity<Element>(_ array: [Element]) -> _BufferIdentity {
  array.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
}

extension Array {
  /// Runs `body` with the elements, read without bounds checks (see `_UncheckedElements`).
  @inlinable
  @inline(__always)
  func _withUncheckedElements<Result>(
    _ body: (_UncheckedElements<Element>) throws -> Result
  ) rethrows -> Result {
    try withUnsafeBufferPointer { try body(_UncheckedElements($0)) }
  }

  /// `Array(unsafeUninitializedCapacity:initializingWith:)`, except that a capacity of zero
  /// never touches the storage that every empty array shares.
  ///
  /// With a capacity of zero the standard library (Swift 6.3.1) still writes the initialised
  /// count, zero, into the empty-array singleton. That write is harmless, but it is a write to
  /// shared memory without synchronisation, and ThreadSanitizer reports it when two threads do it
  /// at once (it did, in the controller stress test: two controllers diffing empty relations).
  /// The standard library avoids the write on its other paths (swiftlang/swift#27808). Here,
  /// `initializer` still runs (callers do other work in it), with an empty buffer of its own.
  @inlinable
  init(
    _uninitializedCount capacity: Int,
    initializingWith initializer: (
      _ buffer: inout UnsafeMutableBufferPointer<Element>, _ initializedCount: inout Int
    ) throws -> Void
  ) rethrows {
    guard capacity > 0 else {
      var buffer = UnsafeMutableBufferPointer<Element>(start: nil, count: 0)
      var count = 0
      try initializer(&buffer, &count)
      precondition(count == 0, "initialised \(count) elements of an empty buffer")
      self = []
      return
    }
    try self.init(unsafeUninitializedCapacity: capacity, initializingWith: initializer)
  }
}

extension ContiguousArray {
  /// Runs `body` with the elements, read without bounds checks (see `_UncheckedElements`).
  @inlinable
  @inline(__always)
  func _withUncheckedElements<Result>(
    _ body: (_UncheckedElements<Element>) throws -> Result
  ) rethrows -> Result {
    try withUnsafeBufferPointer { try body(_UncheckedElements($0)) }
  }

  /// Runs `body` with the elements, read and written in place without bounds checks (see
  /// `_UncheckedMutableElements`).
  @inlinable
  @inline(__always)
  mutating func _withUncheckedMutableElements<Result>(
    _ body: (_UncheckedMutableElements<Element>) throws -> Result
  ) rethrows -> Result {
    try withUnsafeMutableBufferPointer { try body(_UncheckedMutableElements($0)) }
  }

  /// The address of the first element, as a number (0 for no elements): for prefetches only.
  @inlinable
  @inline(__always)
  var _baseAddressBits: UInt {
    withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
  }

  /// Asks for the element at `index` (both ends of it, when it can straddle two cache lines)
  /// to be brought into the cache, without waiting for it. Any index will do: a prefetch never
  /// faults, and reads nothing into the program.
  @inlinable
  @inline(__always)
  func _prefetchElement(at index: Int) {
    let address = _baseAddressBits &+ UInt(bitPattern: index &* MemoryLayout<Element>.stride)
    guard address != 0 else { return }
    _cachePrefetch(UnsafeRawPointer(bitPattern: address))
    // An element no larger than its alignment never straddles a line.
    if MemoryLayout<Element>.size > MemoryLayout<Element>.alignment {
      _cachePrefetch(
        UnsafeRawPointer(bitPattern: address &+ UInt(MemoryLayout<Element>.size &- 1)))
    }
  }

  /// Asks for the `count` elements from `offset` to be brought into the cache, without waiting
  /// for them: one prefetch per 64-byte line, and the last element (the elements need not start
  /// on a line, so they can reach one line more). Any range will do (see `_prefetchElement`).
  @inlinable
  @inline(__always)
  func _prefetchElements(from offset: Int, count: Int) {
    let base = _baseAddressBits
    guard base != 0 else { return }
    let stride = MemoryLayout<Element>.stride
    for element in Swift.stride(from: offset, to: offset &+ count, by: Swift.max(1, 64 / stride)) {
      _cachePrefetch(UnsafeRawPointer(bitPattern: base &+ UInt(bitPattern: element &* stride)))
    }
    if count > 1 {
      let last = offset &+ count &- 1
      _cachePrefetch(UnsafeRawPointer(bitPattern: base &+ UInt(bitPattern: last &* stride)))
    }
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

  /// The column of `array`'s elements, or of the field `byteOffset` bytes into each: valid
  /// until the array changes.
  @inlinable
  init<Value>(_ array: ContiguousArray<Value>, byteOffset: Int = 0) {
    self.init(
      base: array._baseAddressBits &+ UInt(bitPattern: byteOffset),
      stride: MemoryLayout<Value>.stride, count: array.count)
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

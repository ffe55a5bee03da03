import Synchronization

// References whose counting the package does by hand.
//
// Binding's unsafe code lives in five files, each stating its invariant in its header:
// this one, `ThreadState.swift` (thread-confined state), `PropertySlot.swift` (a property's
// observers and an object's slot directory), `Lock.swift` (the lock and the sanitizer hooks)
// and `KeyPathRecord.swift` (a registration's single-property mode). `StateWord.swift` keeps
// an object's observation word, a reference in an integer with a tag, through the types here;
// `Watch.swift` packs an element's identity (never followed) with two flag bits in the free
// alignment bits of one atomic word.
//
// Why by hand: a delivery's cost is mostly reference counting (an atomic retain and release
// pair costs about as much as the rest of a target's call), and the objects on that path are
// kept alive by something the compiler cannot see (the object being written, a registration
// between `_enterCall()` and `_exitCall()`). The benchmark rows that name it: one target /
// floor line, `bind` / one target.
//
// The invariant, for every type here: **whoever makes an unretained reference guarantees that
// the object outlives every use of it**, and says why in one line where it does; a reference
// retained by hand is released exactly once, by the one that owns it. A use after the object
// died is a use after free, which AddressSanitizer reports (CI runs the tests under it);
// `UnretainedReferencesTests` checks each type's counting.

/// A reference to an object that does not keep it alive (see the file's invariant).
@usableFromInline
@frozen
struct _Unretained<Object: AnyObject> {
  @usableFromInline
  let _reference: Unmanaged<Object>

  /// A reference to `object`, not counted.
  @inlinable
  @inline(__always)
  init(_ object: Object) { _reference = .passUnretained(object) }

  @inlinable
  @inline(__always)
  init(_reference: Unmanaged<Object>) { self._reference = _reference }

  /// The object at `address` (not zero), which the caller knows is an `Object`, alive.
  @inlinable
  @inline(__always)
  init(address: UInt) {
    // Not zero: the callers pass the address of a live object.
    _reference = .fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
  }

  /// The object's address, as stored in an atomic word.
  @inlinable
  @inline(__always)
  var address: UInt { UInt(bitPattern: _reference.toOpaque()) }

  /// Runs `body` with the object, counting nothing: the object must outlive the call.
  @inlinable
  @inline(__always)
  func with<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
    try _reference._withUnsafeGuaranteedRef(body)
  }

  /// The object, as a counted reference (a retain).
  @inlinable
  @inline(__always)
  var object: Object { _reference.takeUnretainedValue() }

  /// Whether both name the same object.
  @inlinable
  @inline(__always)
  func isSame(as other: _Unretained<Object>) -> Bool {
    _reference.toOpaque() == other._reference.toOpaque()
  }
}

/// A reference retained by hand: counted once when made, released once by `release()`, so that
/// the object is used in between without counting (`with`).
@usableFromInline
@frozen
struct _Retained<Object: AnyObject> {
  @usableFromInline
  let _reference: Unmanaged<Object>

  /// Retains `object` once; the owner of this value releases it with `release()`.
  @inlinable
  init(_ object: Object) { _reference = .passRetained(object) }

  /// The reference stored at `address` (not zero) by `address` of a `_Retained` earlier.
  @inlinable
  init(address: UInt) {
    // Not zero: the callers pass an address a `_Retained` gave.
    _reference = .fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
  }

  /// The address, to keep the reference in an atomic word.
  @inlinable
  var address: UInt { UInt(bitPattern: _reference.toOpaque()) }

  /// Runs `body` with the object, counting nothing (this value's reference keeps it alive).
  @inlinable
  @inline(__always)
  func with<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
    try _reference._withUnsafeGuaranteedRef(body)
  }

  /// The object, as a counted reference (a retain; this value's reference stays).
  @inlinable
  var object: Object { _reference.takeUnretainedValue() }

  /// The same reference, not counted.
  @inlinable
  var unretained: _Unretained<Object> { _Unretained(_reference: _reference) }

  /// Gives up this value's reference. Exactly once.
  @inlinable
  func release() { _reference.release() }

  /// Moves this value's reference into a counted one. Exactly once, instead of `release()`.
  @inlinable
  func take() -> Object { _reference.takeRetainedValue() }
}

/// An object held by hand in an atomic word: 0 until set, then a reference retained once,
/// released by `release()` (the owner's `deinit`). Set once: the first of concurrent setters
/// wins, the others' objects are released.
///
/// `Sendable` as the atomic word it is: the object it hands out is used as its owner says (a
/// registrar box is `Sendable`; a weak box holds a model, shared as the model's threading
/// contract allows).
@usableFromInline
struct _OnceReference<Object: AnyObject>: ~Copyable, Sendable {
  @usableFromInline
  let _word = Atomic<UInt>(0)

  @usableFromInline
  init() {}

  /// The object, if set, unretained: this value's reference keeps it alive until `release()`.
  @inlinable
  var current: _Unretained<Object>? {
    let word = _word.load(ordering: .acquiring)
    return word == 0 ? nil : _Unretained(address: word)
  }

  /// The object, set to `make()` if it is not set yet.
  @inlinable
  func get(orSet make: () -> Object) -> _Unretained<Object> {
    if let current { return current }
    let made = _Retained(make())
    let (exchanged, current) = _word.compareExchange(
      expected: 0, desired: made.address, ordering: .acquiringAndReleasing)
    if exchanged { return made.unretained }
    made.release()  // another thread stored one first
    return _Unretained(address: current)
  }

  /// Releases the object, if set. Once, by the owner, when nothing can use it any more.
  @inlinable
  func release() {
    let word = _word.load(ordering: .acquiring)
    if word != 0 { _Retained<Object>(address: word).release() }
  }
}

/// A counted reference to `object` that was never retained: a value built from it (a change
/// holding its object) then costs no reference counting. Each claim is paired with
/// `_handBack(_:)` of the same reference once the value that holds it is about to die, and in
/// optimised code the two cancel. The object must outlive the pair; a copy of the value made in
/// between retains it as any copy does.
@inlinable
@inline(__always)
func _claimUncounted<Object: AnyObject>(_ object: Object) -> Object {
  Unmanaged.passUnretained(object).takeRetainedValue()
}

/// Balances `_claimUncounted(_:)`: gives the reference the claim took back.
@inlinable
@inline(__always)
func _handBack<Object: AnyObject>(_ object: Object) {
  _ = Unmanaged.passRetained(object)
}

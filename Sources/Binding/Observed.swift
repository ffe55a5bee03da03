import Synchronization

/// Marks a stored property of an ``ObservableModel`` as observable.
///
/// ```swift
/// final class User: ObservableModel {
///   let observation = ObservationStorage()
///   @Observed var name = ""
/// }
/// ```
///
/// Reading and writing the property costs about what a plain stored property costs while
/// nothing observes it: the wrapper holds the value and one number, set when the first
/// observer arrives. Observers hear every write that changes the value (for `Equatable`
/// values, a write of an equal value is not a change unless an observer asked for
/// ``ObservationOptions/everySet``).
///
/// The wrapper is transparent: it is `Equatable`, `Hashable`, `Encodable` and `Decodable` as its
/// value is, and encodes as the bare value. Copying the storage into another object
/// (`_name = other._name`, in a copying initialiser) copies the value and nothing else: the
/// copy's observers are its own. Copy storage only into an object nobody observes yet (an
/// initialiser): storage assigned over a property that has observers, or copied between two
/// properties of one object, leaves those observers where they were.
///
/// - Important: `@Observed` works only in classes that adopt ``ObservableModel``; Swift rejects
///   it elsewhere at compile time.
@propertyWrapper
public struct Observed<Value> {
  @usableFromInline
  var _value: Value
  /// The number of the property's `_AnySlot` (its observers), set when the first one arrives;
  /// 0 until then. Storage copied from another object names that object's slot, so the
  /// accessors look the number up in the object's own state (see `_SlotID`).
  @usableFromInline
  var _slot: _SlotNumber

  /// Creates the property with its initial value.
  ///
  /// - Parameter wrappedValue: The initial value.
  @inlinable
  public init(wrappedValue: Value) {
    _value = wrappedValue
    _slot = 0
  }

  /// Unavailable: `@Observed` is for properties of classes that adopt ``ObservableModel``.
  @available(
    *, unavailable, message: "@Observed can only be used in a class adopting ObservableModel"
  )
  public var wrappedValue: Value {
    get { fatalError("@Observed can only be used in a class adopting ObservableModel") }
    // swift-format-ignore
    set { fatalError("@Observed can only be used in a class adopting ObservableModel") }
  }

  /// Reads and writes the property of `object`, recording reads for key-path tracking and
  /// notifying observers of writes.
  ///
  /// Only the storage key path is used, and only to project the stored fields: that folds
  /// into direct field accesses once inlined, whereas any other use of a key path argument
  /// would build the key path object on every access.
  @inlinable
  @inline(__always)
  // "requires that 'X' conform to 'ObservableModel'": the class X declares an @Observed
  // property, so it must adopt ObservableModel: `final class X: ObservableModel { ... }`.
  public static subscript<Root: ObservableModel>(
    _enclosingInstance object: Root,
    wrapped wrapped: ReferenceWritableKeyPath<Root, Value>,
    storage storage: ReferenceWritableKeyPath<Root, Self>
  ) -> Value {
    get {
      if Root._bridgesSwiftObservation { object._observationAccess(wrapped) }
      if _isTracking() {
        let slot = object[keyPath: storage]._slot
        let recorded = _recordRead(object, slot)
        if recorded != slot { object[keyPath: storage]._slot = recorded }
      }
      return object[keyPath: storage]._value
    }
    set {
      if Root._bridgesSwiftObservation {
        object._observationMutation(wrapped) { _set(object, newValue, storage) }
      } else {
        _set(object, newValue, storage)
      }
    }
    // In-place mutation (`model.items.append(x)`, `model.count += 1`): the value is mutated
    // where it is stored, without a copy when nothing else holds it, then observers hear it.
    _modify {
      if Root._bridgesSwiftObservation {
        object._observationAccess(wrapped)
        var value = object[keyPath: storage]._value
        yield &value
        let mutated = value
        object._observationMutation(wrapped) { _set(object, mutated, storage) }
      } else {
        yield &object[keyPath: storage]._value
        _didChange(object, storage)
      }
    }
  }

  /// Stores `newValue` and notifies the property's observers.
  @inlinable
  @inline(__always)
  static func _set<Root: ObservableModel>(
    _ object: Root, _ newValue: Value, _ storage: ReferenceWritableKeyPath<Root, Self>
  ) {
    object[keyPath: storage]._value = newValue
    _didChange(object, storage)
  }

  /// Notifies the property's observers that its value was written (by a set or in place).
  ///
  /// Observers re-read what they observe (a key path may transform or combine properties), so
  /// only the fact of the change is passed on.
  @inlinable
  @inline(__always)
  static func _didChange<Root: ObservableModel>(
    _ object: Root, _ storage: ReferenceWritableKeyPath<Root, Self>
  ) {
    // The state word stays in a register: passed `inout` to the slow path, it was stored to the
    // stack before the test, on every write of an object nobody observes.
    let state = object.observation._state.load(ordering: .acquiring)
    if _fastPath(state == 0) { return }
    // One call, and nothing kept across it: a write of an object nobody observes then saves no
    // registers (each one saved is a store, the bound of this path). What comes back is a slot
    // the call made, for a property nobody observed (or whose storage holds another object's
    // slot, copied from there) of an object whose "any property" observers must hear it, with
    // the object, so that `object` is not live across the call.
    guard let made = _didSet(object, storedSlot: object[keyPath: storage]._slot, state: state)
    else { return }
    // Safe: the owner is `object`, which the caller of this setter holds until it returns.
    made.owner.with { owner in
      // Stored before the observers run: one that reads the property must find this slot.
      owner[keyPath: storage]._slot = made.slot
      _notify(owner, madeSlot: made.slot, state: made.state)
    }
  }
}

extension Observed: _ObservedStorage {
  var _slotID: _SlotNumber { _slot }
}

extension Observed: Equatable where Value: Equatable {
  /// Compares the wrapped values.
  ///
  /// - Parameters:
  ///   - lhs: A wrapper.
  ///   - rhs: Another wrapper.
  /// - Returns: Whether the wrapped values are equal.
  @inlinable
  public static func == (lhs: Self, rhs: Self) -> Bool { lhs._value == rhs._value }
}

extension Observed: Hashable where Value: Hashable {
  /// Hashes the wrapped value.
  ///
  /// - Parameter hasher: The hasher to feed.
  @inlinable
  public func hash(into hasher: inout Hasher) { hasher.combine(_value) }
}

extension Observed: Encodable where Value: Encodable {
  /// Encodes the wrapped value as a single value, exactly as the bare property would be.
  ///
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: What encoding the value throws.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(_value)
  }
}

extension Observed: Decodable where Value: Decodable {
  /// Decodes the wrapped value from a single value.
  ///
  /// - Parameter decoder: The decoder to read from.
  /// - Throws: What decoding the value throws.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    self.init(wrappedValue: try container.decode(Value.self))
  }
}

extension KeyedEncodingContainer {
  /// Encodes an optional `@Observed` property like a plain optional property: a `nil` value
  /// leaves the key out.
  ///
  /// Synthesised `Encodable` conformances call this for `@Observed var x: T?`.
  ///
  /// - Parameters:
  ///   - value: The property's storage.
  ///   - key: The property's key.
  /// - Throws: What encoding the value throws.
  public mutating func encode<Wrapped: Encodable>(
    _ value: Observed<Wrapped?>, forKey key: Key
  ) throws {
    try encodeIfPresent(value._value, forKey: key)
  }
}

extension KeyedDecodingContainer {
  /// Decodes an optional `@Observed` property like a plain optional property: a missing key or
  /// a `null` gives `nil`.
  ///
  /// Synthesised `Decodable` conformances call this for `@Observed var x: T?`.
  ///
  /// - Parameters:
  ///   - type: The property's storage type.
  ///   - key: The property's key.
  /// - Returns: The storage, holding the decoded value or `nil`.
  /// - Throws: What decoding a present value throws.
  public func decode<Wrapped: Decodable>(
    _ type: Observed<Wrapped?>.Type, forKey key: Key
  ) throws -> Observed<Wrapped?> {
    Observed(wrappedValue: try decodeIfPresent(Wrapped.self, forKey: key))
  }
}

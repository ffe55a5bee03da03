/// A class whose properties can be bound to key paths of observable models.
///
/// Adopt it with one line; any class can, not only models (every ``ObservableModel`` already
/// is one):
///
/// ```swift
/// final class Label: BindingReceiver {  // or `extension Label: BindingReceiver {}`
///   var text: String?
/// }
/// let label = Label()
///
/// label.bind(\.text, to: user, \.name)  // set now, then on every change
/// label.bind(\.text, to: user, \.name) { "Hello, \($0)" }  // through a transform
/// label.unbind(\.text)
/// ```
///
/// A binding sets the receiver's property at once, then after every change of the source key
/// path, and only when the new value differs from the receiver's current one (for `Equatable`
/// values; a non-`Equatable` value is set on every change of the source). So two reciprocal
/// bindings settle after one round instead of looping. Binding a property that is already
/// bound replaces the old binding. A binding holds neither side: it ends when either is
/// deallocated, when the source announces its deletion (the receiver keeps its last value), or
/// on ``unbind(_:)``. A binding sets the property on every change, inside a ``coalesce(_:)``
/// block too, unless it is made with `options: .coalesced`: then once per transaction, with
/// the last value. Binding a property to itself (same object, same key path) traps with a
/// message: it could only set the property from its own value.
///
/// - Important: The receiver's property is set where the binding was made: from the main
///   actor (a label in a view controller), on the main actor; from nonisolated code,
///   synchronously on the thread that changed the source.
public protocol BindingReceiver: AnyObject {}

extension BindingReceiver {
  /// Binds the receiver's `key` to `path` of `source`.
  ///
  /// The property is set now, then whenever the value of `path` changes and differs from the
  /// property's current value.
  ///
  /// ```swift
  /// label.bind(\.title, to: user, \.greeting)
  /// ```
  ///
  /// Written as literals (`\.title`, `\.greeting`), the key paths compile into direct reads
  /// and writes of what they name: `key` is evaluated three times and `path` twice at
  /// registration, so pass literals or variables, not calls with side effects.
  ///
  /// - Parameters:
  ///   - key: The receiver's property to set.
  ///   - source: The model to read from.
  ///   - path: What to read (a property, a path through other models, or a computed property).
  ///   - options: ``ObservationOptions/coalesced`` sets the property once per transaction (a
  ///     `coalesce(_:)` block), with the last value; ``ObservationOptions/everySet`` applies
  ///     the binding (and its transform) on every write of the source, even of an equal value
  ///     (an `Equatable` property is still set only when the result differs). It is always set
  ///     at once (``ObservationOptions/initial`` is implied).
  ///   - delivery: Where the property is set; by default, where the binding is made.
  ///   - isolation: The binding code's isolation; leave the default.
  /// - Complexity: O(*p*) to bind, where *p* is the number of properties `path` reads.
  @_transparent
  public func bind<Source: ObservableModel, Value: Equatable>(
    _ key: @autoclosure () -> ReferenceWritableKeyPath<Self, Value>,
    to source: Source,
    _ path: @autoclosure () -> KeyPath<Source, Value>,
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation
  ) {
    _bind(
      key(), to: source, path(), read: _reader(path()), get: _reader(key()), put: _writer(key()),
      transform: { $0 }, isEqual: ==, sourceIsEqual: { $0 == $1 }, options: options,
      delivery: delivery,
      isolation: isolation)
  }

  /// Binds the receiver's optional `key` to a non-optional `path` of `source`
  /// (`label.bind(\.text, to: user, \.name)` where `text` is a `String?`).
  ///
  /// ```swift
  /// label.bind(\.text, to: user, \.name)  // `text` is a `String?`, `name` a `String`
  /// ```
  ///
  /// - Parameters:
  ///   - key: The receiver's property to set.
  ///   - source: The model to read from.
  ///   - path: What to read.
  ///   - options: ``ObservationOptions/coalesced`` sets the property once per transaction (a
  ///     `coalesce(_:)` block), with the last value; ``ObservationOptions/everySet`` applies
  ///     the binding (and its transform) on every write of the source, even of an equal value
  ///     (an `Equatable` property is still set only when the result differs). It is always set
  ///     at once (``ObservationOptions/initial`` is implied).
  ///   - delivery: Where the property is set; by default, where the binding is made.
  ///   - isolation: The binding code's isolation; leave the default.
  /// - Complexity: O(*p*) to bind, where *p* is the number of properties `path` reads.
  @_transparent
  public func bind<Source: ObservableModel, Value: Equatable>(
    _ key: @autoclosure () -> ReferenceWritableKeyPath<Self, Value?>,
    to source: Source,
    _ path: @autoclosure () -> KeyPath<Source, Value>,
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation
  ) {
    _bind(
      key(), to: source, path(), read: _reader(path()), get: _reader(key()), put: _writer(key()),
      transform: { Optional($0) }, isEqual: _optionalEquality(Value.self),
      sourceIsEqual: { $0 == $1 }, options: options,
      delivery: delivery, isolation: isolation)
  }

  /// Binds the receiver's `key` to `path` of `source` through `transform`.
  ///
  /// ```swift
  /// label.bind(\.text, to: user, \.name) { "Hello, \($0)" }
  /// ```
  ///
  /// - Parameters:
  ///   - key: The receiver's property to set.
  ///   - source: The model to read from.
  ///   - path: What to read.
  ///   - options: ``ObservationOptions/coalesced`` sets the property once per transaction (a
  ///     `coalesce(_:)` block), with the last value; ``ObservationOptions/everySet`` applies
  ///     the binding (and its transform) on every write of the source, even of an equal value
  ///     (an `Equatable` property is still set only when the result differs). It is always set
  ///     at once (``ObservationOptions/initial`` is implied).
  ///   - delivery: Where the property is set; by default, where the binding is made.
  ///   - isolation: The binding code's isolation; leave the default.
  ///   - transform: Turns the source's value into the receiver's.
  /// - Complexity: O(*p*) to bind, where *p* is the number of properties `path` reads.
  @_transparent
  public func bind<Source: ObservableModel, SourceValue, Value: Equatable>(
    _ key: @autoclosure () -> ReferenceWritableKeyPath<Self, Value>,
    to source: Source,
    _ path: @autoclosure () -> KeyPath<Source, SourceValue>,
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation,
    transform: @escaping (SourceValue) -> Value
  ) {
    _bind(
      key(), to: source, path(), read: _reader(path()), get: _reader(key()), put: _writer(key()),
      transform: transform, isEqual: ==, sourceIsEqual: _equality(of: SourceValue.self),
      options: options, delivery: delivery,
      isolation: isolation)
  }

  /// Binds a property whose type is not `Equatable`: it is set at once and on every change of
  /// the source (there is no way to tell an equal value).
  ///
  /// ```swift
  /// preview.bind(\.document, to: user, \.profile) { Document(profile: $0) }  // not Equatable
  /// ```
  ///
  /// - Parameters:
  ///   - key: The receiver's property to set.
  ///   - source: The model to read from.
  ///   - path: What to read.
  ///   - options: ``ObservationOptions/coalesced`` sets the property once per transaction (a
  ///     `coalesce(_:)` block), with the last value; ``ObservationOptions/everySet`` applies
  ///     the binding (and its transform) on every write of the source, even of an equal value
  ///     (an `Equatable` property is still set only when the result differs). It is always set
  ///     at once (``ObservationOptions/initial`` is implied).
  ///   - delivery: Where the property is set; by default, where the binding is made.
  ///   - isolation: The binding code's isolation; leave the default.
  ///   - transform: Turns the source's value into the receiver's.
  /// - Complexity: O(*p*) to bind, where *p* is the number of properties `path` reads.
  @_transparent
  public func bind<Source: ObservableModel, SourceValue, Value>(
    _ key: @autoclosure () -> ReferenceWritableKeyPath<Self, Value>,
    to source: Source,
    _ path: @autoclosure () -> KeyPath<Source, SourceValue>,
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation,
    transform: @escaping (SourceValue) -> Value
  ) {
    _bind(
      key(), to: source, path(), read: _reader(path()), get: _reader(key()), put: _writer(key()),
      transform: transform, isEqual: nil, sourceIsEqual: _equality(of: SourceValue.self),
      options: options, delivery: delivery,
      isolation: isolation)
  }

  /// Ends the binding of `key`, if any; the property keeps its value. Idempotent.
  ///
  /// - Parameter key: The receiver's bound property.
  /// - Complexity: O(*b*), where *b* is the number of bindings of this receiver.
  public func unbind(_ key: PartialKeyPath<Self>) {
    _BindingRegistry.shared.remove(receiver: self, key: key)
  }

  /// Ends every binding of the receiver; its properties keep their values. Idempotent.
  ///
  /// - Complexity: O(*b*), where *b* is the number of bindings of this receiver.
  public func unbindAll() {
    _BindingRegistry.shared.remove(receiver: self, key: nil)
  }

  /// The properties of the receiver that are currently bound.
  ///
  /// - Complexity: O(*b*), where *b* is the number of bindings of this receiver.
  public var boundKeyPaths: [PartialKeyPath<Self>] {
    _BindingRegistry.shared.keys(of: self).compactMap { $0 as? PartialKeyPath<Self> }
  }

  @inlinable
  func _bind<Source: ObservableModel, SourceValue, Value>(
    _ key: ReferenceWritableKeyPath<Self, Value>,
    to source: Source,
    _ path: KeyPath<Source, SourceValue>,
    read: @escaping (Source) -> SourceValue,
    get: @escaping (Self) -> Value,
    put: @escaping (Self, Value) -> Void,
    transform: @escaping (SourceValue) -> Value,
    isEqual: ((Value, Value) -> Bool)?,
    sourceIsEqual: ((SourceValue, SourceValue) -> Bool)?,
    options: ObservationOptions,
    delivery: ObservationDelivery,
    isolation: (any Actor)?
  ) {
    if source === self && (key as AnyKeyPath) == (path as AnyKeyPath) {
      _bindsItself(key, of: Self.self)
    }
    let route = _Route(delivery, isolation: isolation)
    let guardID = _BindingGuard()
    let set: (Self, Value) -> Void = { receiver, value in
      // Compared when it runs: a value kept for later is compared with what is there then.
      if let isEqual, isEqual(get(receiver), value) { return }
      put(receiver, value)
    }
    let apply: (Self, Value, _Lifetime) -> Void = { receiver, value, lifetime in
      guardID.apply(
        { set(receiver, value) },
        // A new source value came back while this binding writes: applied right after, unless
        // the binding ended meanwhile (unbind, or a new binding of the key).
        orKeep: { { if lifetime.isActive { set(receiver, value) } } },
        describing: { "\(Self.self).\(key) ← \(Source.self).\(path)" })
    }
    let receiver = _WeakBox(self)
    // Changes only: the source's deletion ends the binding (its registration has no deletion
    // callback), and the receiver keeps its last value.
    let dispatch: (KeyPathChange<Source, SourceValue>, _Lifetime) -> Bool = {
      change, lifetime in
      if route.runsHere {
        // Synchronous, or on the main actor with nothing queued: straight through.
        guard let receiver = receiver.value else { return false }
        apply(receiver, transform(change.newValue), lifetime)
        return true
      }
      guard receiver.value != nil else { return false }
      let value = change.newValue
      route.run {
        // Re-checked when its turn comes: a binding ended meanwhile (unbind, a new binding of
        // the key) writes nothing; one ended by its source's deletion still writes what was
        // queued before it.
        if lifetime.mayDeliver, let receiver = receiver.value {
          apply(receiver, transform(value), lifetime)
        }
      }
      return true
    }
    // Replace an existing binding of this key before reading, so the old one cannot fire.
    _BindingRegistry.shared.remove(receiver: self, key: key)
    let record = source._register(
      path, read: read, options: options.subtracting(.initial), target: nil, receiver: self,
      isEqual: sourceIsEqual,
      dispatch: dispatch)
    guard let record else { return }
    // Read through the key path, not `read`: a closure used once (by the registration) is one
    // the optimiser can specialise for a literal key path, into a direct getter call.
    apply(self, transform(source[keyPath: path]), record.lifetime)
    _BindingRegistry.shared.add(receiver: self, key: key, lifetime: record.lifetime)
  }
}

extension BindingReceiver where Self: ObservableModel {
  /// Binds the receiver's `key` and `path` of `source` both ways: the receiver takes the
  /// source's value now, and from then on a change of either side is copied to the other.
  ///
  /// ```swift
  /// form.bind(\.name, twoWayTo: user, \.name)
  /// ```
  ///
  /// Equal values are never copied back, so the pair settles after one change. `unbind(key)`
  /// on the receiver ends both directions.
  ///
  /// - Parameters:
  ///   - key: The receiver's property.
  ///   - source: The other model.
  ///   - path: The other model's property.
  ///   - options: As for a one-way binding, for each direction.
  ///   - delivery: Where each side is set; by default, where the binding is made.
  ///   - isolation: The binding code's isolation; leave the default.
  /// - Complexity: O(*p*) to bind, where *p* is the number of properties the two key paths
  ///   read.
  @inlinable
  public func bind<Source: ObservableModel, Value: Equatable>(
    _ key: ReferenceWritableKeyPath<Self, Value>,
    twoWayTo source: Source,
    _ path: ReferenceWritableKeyPath<Source, Value>,
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation
  ) {
    bind(key, to: source, path, options: options, delivery: delivery, isolation: isolation)
    source.bind(path, to: self, key, options: options, delivery: delivery, isolation: isolation)
    _BindingRegistry.shared.link(receiver: self, key: key, to: source, key: path)
  }
}

/// Traps for a binding of a property to itself.
@usableFromInline
func _bindsItself(_ key: AnyKeyPath, of type: Any.Type) -> Never {
  fatalError(
    """
    Binding: binding \(key) of a \(type) to the same property of the same object would set it \
    from itself (a no-op, or a transform applied to its own result). Bind it to another \
    object's property, or to another property of this one.
    """)
}

/// `==` on optionals of an `Equatable` type.
@inlinable
func _optionalEquality<Value: Equatable>(_: Value.Type) -> (Value?, Value?) -> Bool {
  { $0 == $1 }
}

// The same registrations as in ObservableModel+Observing.swift, for `Equatable` values: the
// value type's own `==` is passed in, so that skipping equal values costs a direct comparison
// instead of a dynamic one. Overload resolution picks these whenever the value is known to be
// `Equatable`; the behaviour is identical.

extension ObservableModel {
  /// Registers a closure that hears every change of `keyPath`, until the token is cancelled or
  /// released, or the object is deallocated or deleted.
  ///
  /// See ``observe(_:options:delivery:isolation:onDeletion:_:)-4qwpw`` for the
  /// full description; this overload compares `Equatable` values with their own `==`.
  ///
  /// ```swift
  /// let token = user.observe(\.name) { print($0.oldValue, "→", $0.newValue) }
  /// ```
  ///
  /// - Parameters:
  ///   - keyPath: What to observe; it must read at least one `@Observed` property.
  ///   - options: ``ObservationOptions/initial``, ``ObservationOptions/coalesced``,
  ///     ``ObservationOptions/everySet``.
  ///   - delivery: Where the handler runs; by default, where the registering code is isolated.
  ///   - isolation: The registering code's isolation; leave the default.
  ///   - onDeletion: Called once, where `handler` runs, when the object announces its deletion
  ///     (``announceDeletion()``), which ends the observation.
  ///   - handler: Receives each change. Never called for the deletion.
  /// - Returns: The token that keeps the observation alive.
  /// - Complexity: O(*p*) to register, where *p* is the number of properties the key path reads.
  @_transparent
  public func observe<Value: Equatable>(
    _ keyPath: @autoclosure () -> KeyPath<Self, Value>,
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation,
    onDeletion: (() -> Void)? = nil,
    _ handler: @escaping (KeyPathChange<Self, Value>) -> Void
  ) -> ObservationToken {
    _observe(
      keyPath(), read: _reader(keyPath()), isEqual: { $0 == $1 }, options: options,
      delivery: delivery, isolation: isolation, onDeletion: onDeletion, handler)
  }

  /// Calls `action` with `target` on every change of `keyPath`, as long as both are alive.
  ///
  /// This overload compares `Equatable` values with their own `==`; see the general form for
  /// the full description.
  ///
  /// ```swift
  /// user.addTarget(self, for: \.name) { me, change in me.title = change.newValue }
  /// ```
  ///
  /// - Parameters:
  ///   - target: The object that receives the changes; held weakly.
  ///   - keyPath: What to observe (evaluated twice at registration, see
  ///     ``observe(_:options:delivery:isolation:onDeletion:_:)-4qwpw``).
  ///   - options: Observation options.
  ///   - delivery: Where `action` runs; by default, where the registering code is isolated.
  ///   - isolation: The registering code's isolation; leave the default.
  ///   - onDeletion: Called once with the target, where `action` runs, when the object
  ///     announces its deletion (``announceDeletion()``), which ends the registration.
  ///   - action: Receives the target and each change. Never called for the deletion.
  /// - Complexity: O(*p*) to register, where *p* is the number of properties the key path reads.
  @_transparent
  public func addTarget<Target: AnyObject, Value: Equatable>(
    _ target: Target,
    for keyPath: @autoclosure () -> KeyPath<Self, Value>,
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation,
    onDeletion: ((Target) -> Void)? = nil,
    _ action: @escaping (Target, KeyPathChange<Self, Value>) -> Void
  ) {
    _addTarget(
      target, for: keyPath(), read: _reader(keyPath()), isEqual: { $0 == $1 }, options: options,
      delivery: delivery, isolation: isolation, onDeletion: onDeletion, action)
  }

  /// Calls a method of `target` on every change of `keyPath`, like target/action.
  ///
  /// This overload compares `Equatable` values with their own `==`.
  ///
  /// ```swift
  /// user.addTarget(self, action: ProfileView.nameChanged, for: \.name)
  /// ```
  ///
  /// - Parameters:
  ///   - target: The object whose method is called; held weakly.
  ///   - action: The method, as an unapplied reference (`ProfileView.nameChanged`). Never
  ///     called for the deletion.
  ///   - onDeletion: A method of `target` that takes no argument (`ProfileView.close`), called
  ///     once, where `action` runs, when the object announces its deletion
  ///     (``announceDeletion()``), which ends the registration.
  ///   - keyPath: What to observe (evaluated twice at registration, see
  ///     ``observe(_:options:delivery:isolation:onDeletion:_:)-4qwpw``).
  ///   - options: Observation options.
  ///   - delivery: Where the method runs.
  ///   - isolation: The registering code's isolation; leave the default.
  /// - Complexity: O(*p*) to register, where *p* is the number of properties the key path reads.
  @_transparent
  public func addTarget<Target: AnyObject, Value: Equatable>(
    _ target: Target,
    action: @escaping (Target) -> (KeyPathChange<Self, Value>) -> Void,
    onDeletion: ((Target) -> () -> Void)? = nil,
    for keyPath: @autoclosure () -> KeyPath<Self, Value>,
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation
  ) {
    _addTarget(
      target, for: keyPath(), read: _reader(keyPath()), isEqual: { $0 == $1 }, options: options,
      delivery: delivery, isolation: isolation, onDeletion: _method(onDeletion)
    ) { target, change in action(target)(change) }
  }
}

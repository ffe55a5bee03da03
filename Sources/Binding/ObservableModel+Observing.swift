extension ObservableModel {
  /// Registers a closure that hears every change of `keyPath`, until the token is cancelled or
  /// released, or the object is deallocated or deleted.
  ///
  /// ```swift
  /// let token = user.observe(\.address?.city, options: .initial) { change in
  ///   print(change.newValue ?? "no city")
  /// }
  /// ```
  ///
  /// The key path may read several `@Observed` properties: a path through other models
  /// (`\.address?.city`, which follows a replaced or removed `address`) or a computed property
  /// (`\.greeting`); it is re-evaluated when anything it read changes, and delivered when its
  /// value changed.
  ///
  /// The handler hears changes only. When the object announces its deletion, which ends the
  /// observation, `onDeletion` is called instead, once:
  ///
  /// ```swift
  /// let token = order.observe(\.total, onDeletion: { print("gone") }) { change in
  ///   print(change.oldValue, "→", change.newValue)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - keyPath: What to observe. It must read at least one `@Observed` property (otherwise
  ///     no change could ever be seen, and registering traps with a message naming it).
  ///     Written as a literal (`\.name`) it is compiled into a direct read of what it names;
  ///     the expression is evaluated twice at registration (once for reading, once for the
  ///     changes' ``KeyPathChange/keyPath``), so pass a literal or a variable, not a call with
  ///     side effects.
  ///   - options: ``ObservationOptions/initial``, ``ObservationOptions/coalesced``,
  ///     ``ObservationOptions/everySet``.
  ///   - delivery: Where the handler runs; by default, where the registering code is isolated.
  ///   - isolation: The registering code's isolation; leave the default.
  ///   - onDeletion: Called once, where `handler` runs, when the object announces its deletion
  ///     (``announceDeletion()``), which ends the observation. Without it, the deletion just
  ///     ends the observation.
  ///   - handler: Receives each change. Never called for the deletion.
  /// - Returns: The token that keeps the observation alive.
  /// - Complexity: O(*p*) to register, where *p* is the number of properties the key path reads.
  @_transparent
  public func observe<Value>(
    _ keyPath: @autoclosure () -> KeyPath<Self, Value>,
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation,
    onDeletion: (() -> Void)? = nil,
    _ handler: @escaping (KeyPathChange<Self, Value>) -> Void
  ) -> ObservationToken {
    _observe(
      keyPath(), read: _reader(keyPath()), isEqual: _equality(of: Value.self), options: options,
      delivery: delivery, isolation: isolation, onDeletion: onDeletion, handler)
  }

  @inlinable
  func _observe<Value>(
    _ keyPath: KeyPath<Self, Value>,
    read: @escaping (Self) -> Value,
    isEqual: ((Value, Value) -> Bool)?,
    options: ObservationOptions,
    delivery: ObservationDelivery,
    isolation: (any Actor)?,
    onDeletion: (() -> Void)?,
    _ handler: @escaping (KeyPathChange<Self, Value>) -> Void
  ) -> ObservationToken {
    let route = _Route(delivery, isolation: isolation)
    let dispatch = _handlerDispatch(route, handler)
    let record = _register(
      keyPath, read: read, options: options, target: nil, isEqual: isEqual, dispatch: dispatch,
      deletion: _handlerDeletion(route, onDeletion))
    return ObservationToken(record.map { [$0] } ?? [])
  }

  /// Calls `action` with `target` on every change of `keyPath`, as long as both are alive.
  ///
  /// The target is held weakly and so is the observed object: the registration ends by itself
  /// when either is deallocated, and `action` never sees a deallocated target.
  ///
  /// ```swift
  /// user.addTarget(self, for: \.name) { me, change in me.title = change.newValue }
  /// ```
  ///
  /// `action` hears changes only. When the object announces its deletion, which ends the
  /// registration, `onDeletion` is called instead, once:
  ///
  /// ```swift
  /// order.addTarget(self, for: \.total, onDeletion: { me in me.close() }) { me, change in
  ///   me.totalLabel.text = "\(change.newValue)"
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - target: The object that receives the changes.
  ///   - keyPath: What to observe (see ``observe(_:options:delivery:isolation:onDeletion:_:)-4qwpw``).
  ///   - options: ``ObservationOptions/initial``, ``ObservationOptions/coalesced``,
  ///     ``ObservationOptions/everySet``.
  ///   - delivery: Where `action` runs; by default, where the registering code is isolated
  ///     (a main-actor view controller hears on the main actor).
  ///   - isolation: The registering code's isolation; leave the default.
  ///   - onDeletion: Called once with the target, where `action` runs, when the object
  ///     announces its deletion (``announceDeletion()``), which ends the registration.
  ///   - action: Receives the target and each change. Never called for the deletion.
  /// - Complexity: O(*p*) to register, where *p* is the number of properties the key path reads.
  @_transparent
  public func addTarget<Target: AnyObject, Value>(
    _ target: Target,
    for keyPath: @autoclosure () -> KeyPath<Self, Value>,
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation,
    onDeletion: ((Target) -> Void)? = nil,
    _ action: @escaping (Target, KeyPathChange<Self, Value>) -> Void
  ) {
    _addTarget(
      target, for: keyPath(), read: _reader(keyPath()), isEqual: _equality(of: Value.self),
      options: options, delivery: delivery, isolation: isolation, onDeletion: onDeletion, action)
  }

  @inlinable
  func _addTarget<Target: AnyObject, Value>(
    _ target: Target,
    for keyPath: KeyPath<Self, Value>,
    read: @escaping (Self) -> Value,
    isEqual: ((Value, Value) -> Bool)?,
    options: ObservationOptions,
    delivery: ObservationDelivery,
    isolation: (any Actor)?,
    onDeletion: ((Target) -> Void)?,
    _ action: @escaping (Target, KeyPathChange<Self, Value>) -> Void
  ) {
    let route = _Route(delivery, isolation: isolation)
    let dispatch = _targetDispatch(target, route, action)
    _ = _register(
      keyPath, read: read, options: options, target: target, isEqual: isEqual,
      dispatch: dispatch, deletion: _targetDeletion(target, route, onDeletion))
  }

  /// Calls a method of `target` on every change of `keyPath`, like target/action.
  ///
  /// ```swift
  /// user.addTarget(self, action: ProfileView.nameChanged, for: \.name)
  /// // where: func nameChanged(_ change: KeyPathChange<User, String>)
  ///
  /// user.addTarget(
  ///   self, action: ProfileView.nameChanged, onDeletion: ProfileView.close, for: \.name)
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
  public func addTarget<Target: AnyObject, Value>(
    _ target: Target,
    action: @escaping (Target) -> (KeyPathChange<Self, Value>) -> Void,
    onDeletion: ((Target) -> () -> Void)? = nil,
    for keyPath: @autoclosure () -> KeyPath<Self, Value>,
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation
  ) {
    _addTarget(
      target, for: keyPath(), read: _reader(keyPath()), isEqual: _equality(of: Value.self),
      options: options, delivery: delivery, isolation: isolation,
      onDeletion: _method(onDeletion)
    ) { target, change in action(target)(change) }
  }

  /// Calls a method of `target` that takes no arguments when any of `keyPaths` changes.
  ///
  /// With ``ObservationOptions/initial``, the method is called once at registration, not once
  /// per key path. With ``ObservationOptions/coalesced``, each changed key path is still a
  /// separate registration: use ``observeEvents(options:delivery:isolation:_:)`` to hear once
  /// per transaction for the whole object.
  ///
  /// The method is called for changes only, never for the deletion of the object; pass
  /// `onDeletion` to hear that:
  ///
  /// ```swift
  /// user.addTarget(self, action: ProfileView.refresh, for: [\.name, \.address])
  /// user.addTarget(
  ///   self, action: ProfileView.refresh, onDeletion: ProfileView.close, for: [\.name])
  /// ```
  ///
  /// - Parameters:
  ///   - target: The object whose method is called; held weakly.
  ///   - action: The method, as an unapplied reference (`ProfileView.refresh`). Never called
  ///     for the deletion.
  ///   - onDeletion: A method of `target` that takes no argument (`ProfileView.close`), called
  ///     once (not once per key path), where `action` runs, when the object announces its
  ///     deletion (``announceDeletion()``), which ends the registration.
  ///   - keyPaths: What to observe.
  ///   - options: Observation options.
  ///   - delivery: Where the method runs.
  ///   - isolation: The registering code's isolation; leave the default.
  /// - Complexity: O(*p*) to register, where *p* is the number of properties the key paths
  ///   read.
  public func addTarget<Target: AnyObject>(
    _ target: Target,
    action: @escaping (Target) -> () -> Void,
    onDeletion: ((Target) -> () -> Void)? = nil,
    for keyPaths: [PartialKeyPath<Self>],
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation
  ) {
    let route = _Route(delivery, isolation: isolation)
    let deletion: ((Self, _Lifetime) -> Bool)? = _once(
      _targetDeletion(target, route, _method(onDeletion)))
    for keyPath in keyPaths {
      _registerErased(
        keyPath, options: options.subtracting(.initial), target: target, deletion: deletion
      ) {
        _targetDispatch(target, route) { target, _ in action(target)() }
      }
    }
    if options.contains(.initial) {
      route.run { [weak target] in if let target { action(target)() } }
    }
  }

  /// Calls a method of `target` that takes no arguments when `keyPath` changes (one key path:
  /// no array needed).
  ///
  /// ```swift
  /// user.addTarget(self, action: ProfileView.refresh, for: \.name)
  /// ```
  ///
  /// - Parameters:
  ///   - target: The object whose method is called; held weakly.
  ///   - action: The method, as an unapplied reference (`ProfileView.refresh`). Never called
  ///     for the deletion.
  ///   - onDeletion: A method of `target` that takes no argument, called once, where `action`
  ///     runs, when the object announces its deletion, which ends the registration.
  ///   - keyPath: What to observe.
  ///   - options: Observation options.
  ///   - delivery: Where the method runs.
  ///   - isolation: The registering code's isolation; leave the default.
  /// - Complexity: O(*p*) to register, where *p* is the number of properties the key path reads.
  public func addTarget<Target: AnyObject>(
    _ target: Target,
    action: @escaping (Target) -> () -> Void,
    onDeletion: ((Target) -> () -> Void)? = nil,
    for keyPath: PartialKeyPath<Self>,
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation
  ) {
    addTarget(
      target, action: action, onDeletion: onDeletion, for: [keyPath], options: options,
      delivery: delivery, isolation: isolation)
  }

  /// Calls `action` with `target` on every change of any of `keyPaths`, with type-erased values.
  ///
  /// ```swift
  /// user.addTarget(self, for: [\.name, \.age]) { me, change in
  ///   print(change.keyPath, change.newValue)
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - target: The object that receives the changes; held weakly.
  ///   - keyPaths: What to observe; with ``ObservationOptions/initial`` each is delivered once.
  ///   - options: Observation options.
  ///   - delivery: Where `action` runs.
  ///   - isolation: The registering code's isolation; leave the default.
  ///   - onDeletion: Called once (not once per key path) with the target, where `action` runs,
  ///     when the object announces its deletion (``announceDeletion()``), which ends the
  ///     registration.
  ///   - action: Receives the target and each change. Never called for the deletion.
  /// - Complexity: O(*p*) to register, where *p* is the number of properties the key paths
  ///   read.
  public func addTarget<Target: AnyObject>(
    _ target: Target,
    for keyPaths: [PartialKeyPath<Self>],
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation,
    onDeletion: ((Target) -> Void)? = nil,
    _ action: @escaping (Target, PartialKeyPathChange<Self>) -> Void
  ) {
    let route = _Route(delivery, isolation: isolation)
    let deletion: ((Self, _Lifetime) -> Bool)? = _once(
      _targetDeletion(target, route, onDeletion))
    for keyPath in keyPaths {
      _registerErased(keyPath, options: options, target: target, deletion: deletion) {
        _targetDispatch(target, route, action)
      }
    }
  }

  /// Removes `target`'s registrations for `keyPath` (not its bindings). Idempotent.
  ///
  /// ```swift
  /// user.removeTarget(self, for: \.name)
  /// ```
  ///
  /// - Parameters:
  ///   - target: The target given to `addTarget`.
  ///   - keyPath: The key path it was registered for.
  /// - Complexity: O(*r*), where *r* is the number of registrations on this object.
  public func removeTarget(_ target: AnyObject, for keyPath: PartialKeyPath<Self>) {
    guard let state = observation.existing else { return }
    let id = ObjectIdentifier(target)
    for record in state.activeRecords()
    where record.targetID == id && record.keyPaths.contains(keyPath) {
      record.cancel()
    }
  }

  /// Removes every registration of `target` on this object (not its bindings). Idempotent.
  ///
  /// ```swift
  /// user.removeTarget(self)
  /// ```
  ///
  /// - Parameter target: The target given to `addTarget`.
  /// - Complexity: O(*r*), where *r* is the number of registrations on this object.
  public func removeTarget(_ target: AnyObject) {
    guard let state = observation.existing else { return }
    let id = ObjectIdentifier(target)
    for record in state.activeRecords() where record.targetID == id { record.cancel() }
  }

  /// Registers a closure that hears every change of any `@Observed` property of the object,
  /// and its deletion.
  ///
  /// This is what dependency tracking needs: one ``ModelEvent/updated(_:_:)`` per change, or,
  /// with ``ObservationOptions/coalesced``, one per coalesced block listing every property that
  /// changed (``ChangedProperties``: its `contains(_:)` answers whether a key path is among
  /// them); and ``ModelEvent/deleted(_:)`` when the object announces its deletion. Writes of equal values
  /// count as changes here.
  ///
  /// ```swift
  /// let token = order.observeEvents(options: .coalesced) { event in
  ///   switch event {
  ///   case .updated(_, let changes): print("changed:", changes.names)
  ///   case .deleted: print("gone")
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - options: ``ObservationOptions/coalesced`` is the useful option here.
  ///   - delivery: Where the handler runs.
  ///   - isolation: The registering code's isolation; leave the default.
  ///   - handler: Receives the events.
  /// - Returns: The token that keeps the observation alive.
  /// - Complexity: O(1) to register.
  public func observeEvents(
    options: ObservationOptions = [],
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation,
    _ handler: @escaping (ModelEvent<Self>) -> Void
  ) -> ObservationToken {
    let route = _Route(delivery, isolation: isolation)
    let record = _AnyRecord(
      options: options,
      changed: { object, slots, lifetime in
        // The record is registered on `self`, whose type is `Self`.
        guard let object = object as? Self else { return false }
        let changes = ChangedProperties<Self>(object: object, slots: slots)
        route.run { if lifetime.mayDeliver { handler(.updated(object, changes)) } }
        return true
      },
      deleted: { object, lifetime in
        guard let object = object as? Self else { return }
        route.run { if lifetime.mayDeliver { handler(.deleted(object)) } }
      })
    guard observation.state(of: self).add(any: record) else {
      record.cancel()
      return ObservationToken([])
    }
    return ObservationToken([record])
  }

  /// The changes of `keyPath` as an asynchronous sequence.
  ///
  /// The sequence buffers without limit (it never drops a change: a slow consumer sees every
  /// change, in order), finishes when the object is deallocated or deleted (a deletion is not
  /// a change, so it is no element: after the loop, ``isDeleted`` tells whether that is why
  /// it finished), and ends the observation when the consuming task stops iterating.
  ///
  /// ```swift
  /// for await change in user.changes(for: \.name) { print(change.newValue) }
  /// ```
  ///
  /// - Parameters:
  ///   - keyPath: What to observe.
  ///   - options: ``ObservationOptions/initial`` yields the current value first.
  /// - Returns: The sequence of changes.
  /// - Complexity: O(*p*) to register, where *p* is the number of properties the key path reads.
  public func changes<Value>(
    for keyPath: KeyPath<Self, Value>, options: ObservationOptions = []
  ) -> KeyPathChanges<Self, Value> {
    let read: (Self) -> Value = { $0[keyPath: keyPath] }
    let (stream, continuation) = AsyncStream<_Transfer<KeyPathChange<Self, Value>>>.makeStream(
      bufferingPolicy: .unbounded)
    // The deletion ends the registration's lifetime, which finishes the stream (`_link`).
    let record = _register(keyPath, read: read, options: options, target: nil) { change, _ in
      continuation.yield(_Transfer(change))
      return true
    }
    if let record {
      _link(continuation, to: record.lifetime)
    } else {
      continuation.finish()
    }
    return KeyPathChanges(base: stream)
  }

  /// Registers `keyPath` with a dispatch closure, and the deletion callback if any (the
  /// dispatch closure never hears the deletion); `nil` if the object was deleted.
  @inlinable
  func _register<Value>(
    _ keyPath: KeyPath<Self, Value>,
    read: @escaping (Self) -> Value,
    options: ObservationOptions,
    target: AnyObject?,
    receiver: AnyObject? = nil,
    isEqual: ((Value, Value) -> Bool)? = _equality(of: Value.self),
    dispatch: @escaping (KeyPathChange<Self, Value>, _Lifetime) -> Bool,
    deletion: ((Self, _Lifetime) -> Bool)? = nil
  ) -> _KeyPathRecord<Self, Value>? {
    let record = _KeyPathRecord(
      root: self, path: keyPath, read: read, options: options, target: target,
      receiver: receiver, isEqual: isEqual, dispatch: dispatch, deletion: deletion)
    guard let value = record.start(self) else { return nil }
    if options.contains(.initial) {
      _ = dispatch(
        KeyPathChange(
          object: self, keyPath: keyPath, oldValue: value, newValue: value, kind: .initial),
        record.lifetime)
    }
    return record
  }

  /// Registers a type-erased key path, opening its value type.
  func _registerErased(
    _ keyPath: PartialKeyPath<Self>,
    options: ObservationOptions,
    target: AnyObject?,
    deletion: ((Self, _Lifetime) -> Bool)?,
    dispatch makeDispatch: () -> (PartialKeyPathChange<Self>, _Lifetime) -> Bool
  ) {
    let dispatch = makeDispatch()
    func open<Value>(_: Value.Type) {
      // `valueType` of a `PartialKeyPath<Self>` is its value type, so this cast holds.
      guard let typed = keyPath as? KeyPath<Self, Value> else { return }
      let read: (Self) -> Value = { $0[keyPath: typed] }
      _ = _register(
        typed, read: read, options: options, target: target,
        dispatch: { change, lifetime in
          dispatch(
            PartialKeyPathChange(
              object: change.object, keyPath: change.keyPath, oldValue: change.oldValue,
              newValue: change.newValue, kind: _erase(change.kind)), lifetime)
        }, deletion: deletion)
    }
    _openExistential(type(of: keyPath).valueType, do: open)
  }
}

/// One change of an observed key path: the object, the key path, and the old and new values.
///
/// ```swift
/// user.addTarget(self, for: \.name) { me, change in
///   print("\(change.oldValue) → \(change.newValue)")
/// }
/// ```
///
/// For an ``Kind-swift.enum/initial`` delivery (``ObservationOptions/initial``) and for a
/// ``Kind-swift.enum/deletion`` event, `oldValue` and `newValue` are both the current value.
public struct KeyPathChange<Root: AnyObject, Value> {
  /// What a delivery reports.
  ///
  /// ```swift
  /// user.addTarget(self, for: \.name, options: .initial) { me, change in
  ///   switch change.kind {
  ///   case .initial, .change: me.title = change.newValue
  ///   case .deletion: me.close()
  ///   }
  /// }
  /// ```
  public enum Kind: Hashable, Sendable {
    /// The current value, delivered once at registration (``ObservationOptions/initial``).
    case initial
    /// The value changed.
    case change
    /// The object announced its deletion; the registration ends after this delivery.
    case deletion
  }

  /// The observed object (the root of the key path, not an intermediate object).
  public let object: Root
  /// The observed key path, as registered.
  public let keyPath: KeyPath<Root, Value>
  /// The value before the change (for a coalesced delivery: before the first change).
  public let oldValue: Value
  /// The value after the change (for a coalesced delivery: after the last change).
  public let newValue: Value
  /// What this delivery reports.
  public let kind: Kind

  /// Creates a change.
  ///
  /// - Parameters:
  ///   - object: The observed object.
  ///   - keyPath: The observed key path.
  ///   - oldValue: The value before the change.
  ///   - newValue: The value after the change.
  ///   - kind: What the delivery reports.
  @inlinable
  public init(
    object: Root, keyPath: KeyPath<Root, Value>, oldValue: Value, newValue: Value,
    kind: Kind = .change
  ) {
    self.object = object
    self.keyPath = keyPath
    self.oldValue = oldValue
    self.newValue = newValue
    self.kind = kind
  }

  /// Whether this is the delivery of the current value at registration.
  public var isInitial: Bool { kind == .initial }
  /// Whether this reports the deletion of the object.
  public var isDeletion: Bool { kind == .deletion }
}

/// One change of one of several observed key paths, with type-erased values.
///
/// Delivered when a target observes several key paths of different value types at once.
///
/// ```swift
/// user.addTarget(self, for: [\.name, \.age]) { me, change in
///   if change.keyPath == \User.name, let name = change.newValue as? String { me.title = name }
/// }
/// ```
public struct PartialKeyPathChange<Root: AnyObject> {
  /// The observed object.
  public let object: Root
  /// The key path that changed.
  public let keyPath: PartialKeyPath<Root>
  /// The value before the change.
  public let oldValue: Any
  /// The value after the change.
  public let newValue: Any
  /// What this delivery reports.
  public let kind: KeyPathChange<Root, Any>.Kind

  /// Whether this is the delivery of the current value at registration.
  public var isInitial: Bool { kind == .initial }
  /// Whether this reports the deletion of the object.
  public var isDeletion: Bool { kind == .deletion }
}

/// What happened to a model, as reported to observers of all its properties.
///
/// ```swift
/// let token = order.observeEvents(options: .coalesced) { event in
///   switch event {
///   case .updated(_, let changes): print("changed:", changes.names)
///   case .deleted: print("gone")
///   }
/// }
/// ```
public enum ModelEvent<Root: ObservableModel> {
  /// Properties of the model changed (one event per change, or one per coalesced block).
  case updated(Root, ChangedProperties<Root>)
  /// The model announced its deletion; the registration ends after this event.
  case deleted(Root)

  /// The model the event is about.
  public var object: Root {
    switch self {
    case .updated(let object, _), .deleted(let object): object
    }
  }
}

/// Options for a key-path observation.
///
/// ```swift
/// user.addTarget(self, for: \.name, options: [.initial, .coalesced]) { me, change in
///   me.title = change.newValue  // now, then once per transaction
/// }
/// ```
public struct ObservationOptions: OptionSet, Hashable, Sendable {
  /// The raw bits of the options.
  public let rawValue: Int

  /// Creates options from a raw value.
  ///
  /// - Parameter rawValue: The raw bits.
  @inlinable
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// Delivers the current value once, at registration, with
  /// ``KeyPathChange/Kind-swift.enum/initial``.
  @inlinable
  public static var initial: ObservationOptions { ObservationOptions(rawValue: 1 << 0) }
  /// Merges deliveries per transaction: one delivery per registration, with the first old
  /// value and the last new value.
  ///
  /// A transaction is the outermost ``coalesce(_:)`` block or, outside any block, one write
  /// together with what its observers' callbacks write: a coalesced registration hears it once,
  /// after every registration without the option has heard it.
  @inlinable
  public static var coalesced: ObservationOptions { ObservationOptions(rawValue: 1 << 1) }
  /// Delivers writes that store an equal value too (by default, for `Equatable` values, only
  /// writes that change the value are delivered).
  @inlinable
  public static var everySet: ObservationOptions { ObservationOptions(rawValue: 1 << 2) }

  /// Keeps no copy of the value between changes: each change is delivered with the new value
  /// as its old value too. For observers that need only the new value of a large value (a
  /// relation controller's array), so that holding the old one does not make every in-place
  /// edit of the property copy it. Implies ``everySet`` (there is no old value to compare).
  @usableFromInline
  package static var _keepsNoValue: ObservationOptions {
    ObservationOptions(rawValue: _keepsNoValueBit)
  }

  /// The bit of ``_keepsNoValue``.
  @usableFromInline
  static var _keepsNoValueBit: Int { 1 << 16 }
}

/// The `@Observed` properties of a model that changed in one transaction.
///
/// ```swift
/// case .updated(let order, let changes):
///   if changes.contains { $0.total } { refreshTotal(order) }
/// ```
public struct ChangedProperties<Root: ObservableModel> {
  let object: Root
  let slots: [_AnySlot]

  /// The number of properties that changed.
  public var count: Int { slots.count }

  /// The names of the properties that changed, in order of first change.
  ///
  /// - Complexity: O(*p*) reflection of the model the first time a property's name is asked.
  public var names: [String] { slots.map { $0.name(in: object) } }

  /// Whether a change of these properties may have changed the value of `keyPath`: whether
  /// `keyPath`, evaluated on the model now, reads one of them.
  ///
  /// For a key path naming an `@Observed` property (`\.total`) that is whether the property
  /// changed; for a path or a computed property, whether anything it reads changed.
  ///
  /// - Parameter keyPath: The key path to test.
  /// - Returns: `true` if evaluating `keyPath` on the model reads a changed property.
  /// - Complexity: One evaluation of `keyPath` with access tracking.
  public func contains<Value>(_ keyPath: KeyPath<Root, Value>) -> Bool {
    let (_, read) = _AccessRecorder.track { object[keyPath: keyPath] }
    return read.contains { slot in slots.contains { $0 === slot } }
  }
}

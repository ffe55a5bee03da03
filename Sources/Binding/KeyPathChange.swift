/// One change of an observed key path: the object, the key path, and the old and new values.
///
/// ```swift
/// user.addTarget(self, for: \.name) { me, change in
///   print("\(change.oldValue) → \(change.newValue)")
/// }
/// ```
///
/// For an ``Kind-swift.enum/initial`` delivery (``ObservationOptions/initial``), `oldValue`
/// and `newValue` are both the current value.
///
/// A change is always a value: the deletion of the object is never delivered as a change. It
/// goes to the registration's `onDeletion:` callback, if it has one (see
/// ``ObservableModel/announceDeletion()``).
public struct KeyPathChange<Root: AnyObject, Value> {
  /// What a delivery reports: the current value at registration, or a change.
  ///
  /// ```swift
  /// user.addTarget(self, for: \.name, options: .initial) { me, change in
  ///   if change.isInitial { me.animates = false }
  ///   me.title = change.newValue
  /// }
  /// ```
  public enum Kind: Hashable, Sendable {
    /// The current value, delivered once at registration (``ObservationOptions/initial``).
    case initial
    /// The value changed.
    case change
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
}

/// What happened to a model: its properties changed, or it announced its deletion.
///
/// One type for both places that report it. A model's
/// ``ObservableModel/observeEvents(options:delivery:isolation:_:)`` hands the typed form, `ModelEvent<Order>`; a ``DependencyTracker``, which holds models of
/// any type, hands `ModelEvent<any ObservableModel>`, whose payload is the model itself (get it
/// back typed with a pattern or with ``object(as:)``):
///
/// ```swift
/// let token = order.observeEvents(options: .coalesced) { event in
///   switch event {
///   case .updated(_, let changes): print("changed:", changes.names)
///   case .deleted: print("gone")
///   }
/// }
///
/// let tracker = DependencyTracker { event in
///   switch event {
///   case .updated(let order as Order, let changes) where changes.contains(\Order.total):
///     showTotal(order.total)
///   case .updated(let object, _): print(type(of: object), "changed")
///   case .deleted(let object): print(type(of: object), "deleted")
///   }
/// }
/// ```
///
/// `Model` is a model type, or `any ObservableModel` for a tracker's events.
public enum ModelEvent<Model> {
  /// Properties of the model changed (one event per change, or one per coalesced block);
  /// `changes` lists them.
  ///
  /// ```swift
  /// case .updated(let order, let changes): print(order.total, changes.names)
  /// ```
  case updated(Model, ChangedProperties<Model>)
  /// The model announced its deletion (`announceDeletion()`); the registration ends after this
  /// event (a tracker has already removed it from its set).
  ///
  /// ```swift
  /// case .deleted(let object): print("gone:", object)
  /// ```
  case deleted(Model)

  /// The model the event is about.
  ///
  /// ```swift
  /// if event.object === order { refresh(order) }
  /// ```
  ///
  /// - Complexity: O(1).
  public var object: Model {
    switch self {
    case .updated(let object, _), .deleted(let object): object
    }
  }

  /// The model, if it is a `Other` (for the events of a tracker, which hold models of any
  /// type).
  ///
  /// ```swift
  /// if let order = event.object(as: Order.self) { refresh(order) }
  /// ```
  ///
  /// - Parameter type: The model type you expect.
  /// - Returns: The object as an `Other`, or `nil` if it is of another type.
  /// - Complexity: O(1).
  public func object<Other: ObservableModel>(as type: Other.Type) -> Other? {
    object as? Other
  }

  /// The changed properties of an ``updated(_:_:)`` event; `nil` for a deletion.
  ///
  /// ```swift
  /// if event.changes?.contains(\Order.total) == true { print("total changed") }
  /// ```
  ///
  /// - Complexity: O(1).
  public var changes: ChangedProperties<Model>? {
    guard case .updated(_, let changes) = self else { return nil }
    return changes
  }

  /// Whether the event reports a deletion.
  ///
  /// ```swift
  /// if event.isDeletion { close() }
  /// ```
  ///
  /// - Complexity: O(1).
  public var isDeletion: Bool {
    guard case .deleted = self else { return false }
    return true
  }
}

/// Holds a model, which may not cross isolation domains.
@available(*, unavailable)
extension ModelEvent: Sendable {}

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
  /// (or one ``ObservableModel/announceDeletion()``) together with what its observers'
  /// callbacks write: a coalesced registration hears it once, after every registration without
  /// the option has heard it.
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
/// Handed with each ``ModelEvent/updated(_:_:)`` event: every property of the model that was
/// written in the transaction (one change, or one coalesced block), however many times. Ask
/// whether a key path is among them with `contains(_:)`:
///
/// ```swift
/// case .updated(let order, let changes):
///   if changes.contains(\.total) { refreshTotal(order) }
/// ```
///
/// In a ``DependencyTracker``'s events (`ChangedProperties<any ObservableModel>`), name the
/// model type in the key path (`changes.contains(\Order.total)`); a key path of another model
/// type is never contained, so one handler can test the key paths of every type it tracks.
///
/// - Note: The value holds the changed model; it is not `Sendable`.
public struct ChangedProperties<Model> {
  /// The changed model.
  let object: Model
  /// The changed properties' slots, each once, in order of first change.
  var slots: [_AnySlot]

  init(object: Model, slots: [_AnySlot]) {
    self.object = object
    self.slots = slots
  }

  /// Adds the properties of `other`, which must be changes of the same object.
  mutating func formUnion(_ other: Self) {
    for slot in other.slots where !slots.contains(where: { $0 === slot }) { slots.append(slot) }
  }

  /// The number of properties that changed (at least one).
  ///
  /// ```swift
  /// if changes.count > 1 { reloadAll() }
  /// ```
  ///
  /// - Complexity: O(1).
  public var count: Int { slots.count }

  /// The names of the properties that changed, each once, in order of first change.
  ///
  /// ```swift
  /// print(changes.names)  // ["status", "total"]
  /// ```
  ///
  /// - Complexity: O(*p*) reflection of the model the first time a property's name is asked.
  public var names: [String] { slots.map { $0.name(in: object as AnyObject) } }

  /// Whether a change of these properties may have changed the value of `keyPath`: whether
  /// `keyPath`, evaluated on the model now, reads one of them.
  ///
  /// For a key path naming an `@Observed` property (`\Order.total`) that is whether the
  /// property changed; for a path or a computed property, whether anything it reads changed. A
  /// key path of another model type is never contained.
  ///
  /// ```swift
  /// if changes.contains(\Order.total) { totalLabel.text = "\(order.total)" }
  /// ```
  ///
  /// - Parameter keyPath: The key path to test, rooted at the model type you expect.
  /// - Returns: `true` if evaluating `keyPath` on the model reads a changed property.
  /// - Complexity: One evaluation of `keyPath` with access tracking.
  public func contains<Other: ObservableModel, Value>(_ keyPath: KeyPath<Other, Value>) -> Bool {
    guard let object = object as? Other else { return false }
    let (_, read) = _AccessRecorder.track { object[keyPath: keyPath] }
    return read.contains { slot in slots.contains { $0 === slot } }
  }
}

extension ChangedProperties where Model: ObservableModel {
  /// Whether a change of these properties may have changed the value of `keyPath`: whether
  /// `keyPath`, evaluated on the model now, reads one of them.
  ///
  /// For a key path naming an `@Observed` property (`\.total`) that is whether the property
  /// changed; for a path or a computed property, whether anything it reads changed.
  ///
  /// ```swift
  /// if changes.contains(\.total) { refreshTotal(order) }
  /// ```
  ///
  /// - Parameter keyPath: The key path to test.
  /// - Returns: `true` if evaluating `keyPath` on the model reads a changed property.
  /// - Complexity: One evaluation of `keyPath` with access tracking.
  public func contains<Value>(_ keyPath: KeyPath<Model, Value>) -> Bool {
    let (_, read) = _AccessRecorder.track { object[keyPath: keyPath] }
    return read.contains { slot in slots.contains { $0 === slot } }
  }
}

/// Holds a model, which may not cross isolation domains.
@available(*, unavailable)
extension ChangedProperties: Sendable {}

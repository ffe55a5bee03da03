import Synchronization

/// A class whose `@Observed` properties can be observed by key path, bound, and coalesced.
///
/// Adopt it with one extra line, the per-object storage that observation uses; mark each
/// observable stored property `@Observed`. No base class is needed, so a model can inherit from
/// anything.
///
/// ```swift
/// final class User: ObservableModel {
///   let observation = ObservationStorage()
///   @Observed var name = ""
///   @Observed var address: Address?
///   var greeting: String { "Hello, \(name)" }  // observable through `name`
/// }
///
/// user.addTarget(self, for: \.name) { me, change in me.title = change.newValue }
/// ```
///
/// Computed properties and paths through other models (`\.address?.city`) are observable
/// through the `@Observed` properties they read; plain stored properties are not.
///
/// - Important: A model is an ordinary class. Writes of one property from several threads at
///   once are the caller's to serialise, as with any class; registering an observer of a
///   property reads it, so it is serialised with that property's writes the same way. The
///   package's own state (registrations, tokens) is safe to use from any thread.
public protocol ObservableModel: BindingReceiver {
  /// The model's observation state. Declare it as `let observation = ObservationStorage()`.
  var observation: ObservationStorage { get }

  /// Whether the model reports to Swift Observation; provided, do not implement.
  static var _bridgesSwiftObservation: Bool { get }
  /// Reports a read to Swift Observation; provided, do not implement.
  func _observationAccess<Value>(_ keyPath: KeyPath<Self, Value>)
  /// Runs a write bracketed for Swift Observation; provided, do not implement.
  func _observationMutation<Value>(_ keyPath: KeyPath<Self, Value>, _ mutation: () -> Void)
}

/// The per-object state behind observation: one pointer, allocated on first observation.
///
/// Declare it once in each model class:
///
/// ```swift
/// let observation = ObservationStorage()
/// ```
///
/// Nobody observing costs 8 bytes per object; the state is created by the first registration
/// and destroyed with the object, which ends every registration on it.
///
/// - Note: `ObservationStorage` is noncopyable, so it cannot be `Codable`. A model that
///   synthesises `Codable` lists its coding keys (`enum CodingKeys: CodingKey { case name }`);
///   each `@Observed` property encodes as its plain value.
public struct ObservationStorage: ~Copyable, Sendable {
  /// The address of the retained `_ModelState`, or 0.
  @usableFromInline
  let _state = Atomic<UInt>(0)

  /// Creates empty storage; nothing is allocated until something observes the object.
  public init() {}

  deinit {
    if let raw = UnsafeRawPointer(bitPattern: _state.load(ordering: .acquiring)) {
      let state = Unmanaged<_ModelState>.fromOpaque(raw)
      state._withUnsafeGuaranteedRef { $0.objectDidDie() }
      state.release()
    }
  }

  /// The state, if something has observed the object.
  var existing: _ModelState? {
    guard let raw = UnsafeRawPointer(bitPattern: _state.load(ordering: .acquiring)) else {
      return nil
    }
    return Unmanaged<_ModelState>.fromOpaque(raw).takeUnretainedValue()
  }

  /// The state, created on first use (thread-safe: concurrent creators agree on one).
  func state() -> _ModelState {
    if let existing { return existing }
    let created = Unmanaged.passRetained(_ModelState())
    let address = UInt(bitPattern: created.toOpaque())
    let (exchanged, current) = _state.compareExchange(
      expected: 0, desired: address, ordering: .acquiringAndReleasing)
    if exchanged { return created.takeUnretainedValue() }
    created.release()
    // `current` is non-zero: the exchange failed because another thread stored a state first.
    return Unmanaged<_ModelState>.fromOpaque(UnsafeRawPointer(bitPattern: current)!)
      .takeUnretainedValue()
  }
}

extension ObservableModel {
  /// Whether the model has announced its deletion.
  ///
  /// - Complexity: O(1).
  public var isDeleted: Bool { observation.existing?.isDeleted ?? false }

  /// Announces that the model was deleted (for example, a store removed its record).
  ///
  /// Every registration observing the model hears a deletion event
  /// (``KeyPathChange/Kind-swift.enum/deletion``),
  /// not a value change, and then ends; bindings from the model end and their receivers keep
  /// their last value; relation controllers drop the model from their content. Later changes
  /// and registrations notify nobody. Announcing twice does nothing the second time.
  ///
  /// ```swift
  /// store.delete(record)
  /// record.announceDeletion()
  /// ```
  ///
  /// - Complexity: O(*r*), where *r* is the number of registrations on the model.
  public func announceDeletion() {
    guard let taken = observation.state().markDeleted() else { return }
    for slot in taken.slots { slot.deactivateAll() }
    for record in taken.anyRecords { record.deliverDeletion(of: self) }
    for record in taken.records { record.deliverDeletion(of: self) }
    for watch in taken.watches { watch.fire(self, deleted: true) }
    for record in taken.anyRecords where !record.deletionIsDeferred { record.cancel() }
    for record in taken.records { record.cancel() }
  }
}

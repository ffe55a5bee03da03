import Synchronization

/// A class whose `@Observed` properties can be observed by key path, bound, and coalesced.
///
/// Adopt it with one extra line, the per-object storage that observation uses; mark each
/// observable stored property `@Observed`. No base class is needed, so a model can inherit from
/// any class of yours (`final class Note: Document, ObservableModel`).
///
/// A model is a `final` class: the protocol's requirements refer to `Self`, so a non-final class
/// cannot adopt it (the compiler says that a requirement "cannot be satisfied by a non-final
/// class"), and models do not form hierarchies of observable classes. To share observable
/// properties, compose models (a model holding another, observed through `\.address?.city`).
///
/// ```swift
/// final class User: ObservableModel {
///   let observation = ObservationStorage()
///   @Observed var name = ""
///   @Observed var address: Address?
///   var greeting: String { "Hello, \(name)" }  // observable through `name`
/// }
///
/// let user = User()
/// user.addTarget(self, for: \.name) { me, change in me.title = change.newValue }
/// ```
///
/// Computed properties and paths through other models (`\.address?.city`) are observable
/// through the `@Observed` properties they read; plain stored properties are not.
///
/// - Important: A model is an ordinary class. Writes of one property from several threads at
///   once are the caller's to serialise, as with any class; registering an observer of a
///   property reads it, so it is serialised with that property's writes, and with other
///   registrations of that property, the same way. The package's own state (registrations of
///   different properties or objects, tokens, cancellation) is safe to use from any thread.
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
  /// 0 until something observes the object; then the address of the retained `_ModelState`;
  /// or, while one relation controller alone watches the object as an element whose
  /// evaluation read nothing else (a lone watch, see `StateWord.swift`), the address of that
  /// controller's retained `_WatchSink` with bit 0 set, so that no state is allocated for it.
  @usableFromInline
  let _state = Atomic<UInt>(0)

  /// Creates empty storage; nothing is allocated until something observes the object.
  public init() {}

  deinit { _objectDidDie(word: _state.load(ordering: .acquiring)) }
}

extension ObservableModel {
  /// Whether the model has announced its deletion.
  ///
  /// - Complexity: O(1).
  public var isDeleted: Bool { observation.existing?.isDeleted ?? false }

  /// The value at `keyPath`, and whether reading it read exactly one `@Observed` property, of
  /// this object (a relation stored here, not a path through other objects); package:
  /// relation edits take only such a value out of its property.
  @usableFromInline
  package func _readNotingOwnership<Value>(
    _ keyPath: KeyPath<Self, Value>
  ) -> (value: Value, isOwnProperty: Bool) {
    let (value, slots) = _AccessRecorder.track { self[keyPath: keyPath] }
    return (value, slots.count == 1 && slots[0].isOwned(by: self))
  }

  /// Whether the object has the state that observation allocates (a test hook, not API: a
  /// relation controller's lone watch needs none).
  @usableFromInline
  package var _hasObservationState: Bool { observation.existing != nil }

  /// Announces that the model was deleted (for example, a store removed its record).
  ///
  /// A deletion is not a change: every registration observing the model ends, after calling
  /// its `onDeletion` callback if it has one (no change handler hears the deletion); whole-object
  /// observers (``observeEvents(options:delivery:isolation:_:)``, a ``DependencyTracker``) hear
  /// ``ModelEvent/deleted(_:)``; bindings from the model end and their receivers keep their last
  /// value; relation controllers drop the model from their content. Later changes and
  /// registrations notify nobody. Announcing twice does nothing the second time.
  ///
  /// The announcement is one transaction, as a write is: outside ``coalesce(_:)``, what the
  /// observers' callbacks write or delete joins it, coalesced registrations hear it once the
  /// others have, and a relation controller delivers one change set for it, however many of
  /// its elements read the model (a label that they sort by).
  ///
  /// ```swift
  /// store.delete(record)
  /// record.announceDeletion()
  /// ```
  ///
  /// - Complexity: O(*r*), where *r* is the number of registrations on the model.
  public func announceDeletion() {
    guard let taken = observation.state(of: self).markDeleted() else { return }
    // One notified write, as a write of the object is: every watch that fires (each element
    // whose sort or filter reads the object) joins one transaction, so a controller delivers
    // one change set, and what the observers' callbacks write or delete joins it too.
    _notifyingDeletion {
      for slot in taken.slots { slot.deactivateAll() }
      for record in taken.anyRecords { record.deliverDeletion(of: self) }
      for record in taken.records { record.deliverDeletion(of: self) }
      for watch in taken.watches { watch.fire(self, deleted: true) }
      for record in taken.anyRecords where !record.deletionIsDeferred {
        record.lifetime.endAfterDeletion()
      }
      for record in taken.records { record.lifetime.endAfterDeletion() }
    }
  }
}

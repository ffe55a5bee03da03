import Binding

/// One tracked object: a weak reference to it, and the identity of this tracking (a model that
/// is removed and added again gets a new `_Dependency`, so events of the old one are dropped).
///
/// `@unchecked Sendable` because `object` is a weak reference written once, in `init`, and only
/// read afterwards (the Swift runtime loads weak references atomically); the model it points to
/// is shared under the model's own threading contract.
final class _Dependency: @unchecked Sendable {
  /// The tracked model, or `nil` once it was deallocated.
  private(set) weak var object: (any ObservableModel)?
  /// The model's identity (stable while the model is alive).
  let id: ObjectIdentifier

  init(_ object: any ObservableModel) {
    self.object = object
    self.id = ObjectIdentifier(object)
  }

  /// Whether the model is still alive.
  var isAlive: Bool { object != nil }
}

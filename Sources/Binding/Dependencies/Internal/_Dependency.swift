import Synchronization

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
  /// Set when the user removed the dependency: its updates not yet delivered are dropped
  /// (a deletion leaves this unset, so the updates that came before it are still delivered).
  private let _removed = Atomic<Bool>(false)

  init(_ object: any ObservableModel) {
    self.object = object
    self.id = ObjectIdentifier(object)
  }

  /// Whether the model is still alive.
  var isAlive: Bool { object != nil }

  /// Whether the user removed the dependency.
  var isRemoved: Bool { _removed.load(ordering: .acquiring) }

  /// Marks the dependency removed by the user.
  func markRemoved() { _removed.store(true, ordering: .releasing) }
}

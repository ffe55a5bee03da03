/// What happened to a dependency of a ``DependencyTracker`` in one transaction.
///
/// A tracker reports, per transaction (one change, or one `coalesce` block), first one
/// ``deleted(_:)`` per dependency that announced its deletion (it has already left the set),
/// then one ``updated(_:_:)`` per dependency whose properties changed and that was not deleted.
/// The payload is the model itself; get it back typed with a pattern or with
/// ``object(as:)``:
///
/// ```swift
/// let tracker = DependencyTracker { event in
///   switch event {
///   case .updated(let order as Order, let changes) where changes.contains(\Order.total):
///     showTotal(order.total)
///   case .updated(let object, _):
///     print(type(of: object), "changed")
///   case .deleted(let object):
///     print(type(of: object), "deleted")
///   }
/// }
/// ```
public enum DependencyEvent {
  /// Properties of a dependency changed; `changes` lists them.
  ///
  /// ```swift
  /// case .updated(let order as Order, let changes): ...
  /// ```
  case updated(any ObservableModel, DependencyChanges)
  /// A dependency announced its deletion (`announceDeletion()`); it is no longer in the set.
  ///
  /// ```swift
  /// case .deleted(let object): print("gone:", object)
  /// ```
  case deleted(any ObservableModel)

  /// The dependency the event is about.
  ///
  /// ```swift
  /// if event.object === order { ... }
  /// ```
  ///
  /// - Complexity: O(1).
  public var object: any ObservableModel {
    switch self {
    case .updated(let object, _), .deleted(let object): object
    }
  }

  /// The dependency, if it is a `Model`.
  ///
  /// ```swift
  /// if let order = event.object(as: Order.self) { refresh(order) }
  /// ```
  ///
  /// - Parameter type: The model type you expect.
  /// - Returns: The object as a `Model`, or `nil` if it is of another type.
  /// - Complexity: O(1).
  public func object<Model: ObservableModel>(as type: Model.Type) -> Model? {
    object as? Model
  }

  /// The changed properties of an ``updated(_:_:)`` event; `nil` for a deletion.
  ///
  /// ```swift
  /// if event.changes?.contains(\Order.total) == true { ... }
  /// ```
  ///
  /// - Complexity: O(1).
  public var changes: DependencyChanges? {
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
extension DependencyEvent: Sendable {}

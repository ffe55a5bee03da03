/// The `@Observed` properties of one dependency that changed in one transaction.
///
/// A ``DependencyTracker`` hands one `DependencyChanges` with each
/// ``DependencyEvent/updated(_:_:)`` event: every property of the object that was written in
/// the transaction (one change, or one coalesced block), however many times. Ask whether a
/// key path is among them with ``contains(_:)``, typed by the model:
///
/// ```swift
/// let tracker = DependencyTracker { event in
///   guard case .updated(let object, let changes) = event else { return }
///   if changes.contains(\Order.total) { print("new total") }
///   print(type(of: object), "changed:", changes.names)
/// }
/// ```
///
/// A key path of another model type is never contained, so one handler can test the key paths
/// of every type it tracks.
///
/// - Note: Like `ChangedProperties`, the value holds the changed object; it is not `Sendable`.
public struct DependencyChanges {
  /// The changes as Binding reported them (one per change, or one per coalesced block).
  var _parts: [any _PropertyChanges]

  init(_ parts: [any _PropertyChanges]) { _parts = parts }

  /// Adds the properties of `other`, which must be changes of the same object.
  mutating func formUnion(_ other: DependencyChanges) { _parts += other._parts }

  /// The names of the properties that changed, each once, in order of first change.
  ///
  /// ```swift
  /// changes.names  // ["status", "total"]
  /// ```
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes merged into this value (plus, the
  ///   first time, Binding's reflection of the model's property names).
  public var names: [String] {
    var seen = Set<String>()
    var names: [String] = []
    for part in _parts {
      for name in part.names where seen.insert(name).inserted { names.append(name) }
    }
    return names
  }

  /// The number of properties that changed (at least one).
  ///
  /// ```swift
  /// if changes.count > 1 { reloadAll() }
  /// ```
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes merged into this value.
  public var count: Int { names.count }

  /// Whether a change of these properties may have changed the value of `keyPath`.
  ///
  /// For a key path naming an `@Observed` property (`\Order.total`), whether that property
  /// changed; for a path or a computed property, whether anything it reads changed (evaluated
  /// on the object now). A key path of another model type is never contained.
  ///
  /// ```swift
  /// if changes.contains(\Order.total) { totalLabel.text = "\(order.total)" }
  /// ```
  ///
  /// - Parameter keyPath: The key path to test, rooted at the model type you expect.
  /// - Returns: `true` if evaluating `keyPath` on the object reads a changed property.
  /// - Complexity: O(*c*) evaluations of `keyPath` with access tracking, where *c* is the number
  ///   of changes merged into this value.
  public func contains<Model: ObservableModel, Value>(_ keyPath: KeyPath<Model, Value>) -> Bool {
    _parts.contains { $0._contains(keyPath) }
  }
}

/// Holds a model, which may not cross isolation domains.
@available(*, unavailable)
extension DependencyChanges: Sendable {}

import Observation

/// A model whose `@Observed` properties Swift Observation sees too, so SwiftUI views and
/// `withObservationTracking` update when they change.
///
/// Adopt it instead of ``ObservableModel``; nothing else changes:
///
/// ```swift
/// final class User: ObservationBridging {
///   let observation = ObservationStorage()
///   @Observed var name = ""
/// }
///
/// withObservationTracking { _ = user.name } onChange: { print("will change") }
/// ```
///
/// - Note: The cost is Swift Observation's: every read of a property of such a model reports
///   the access to an `ObservationRegistrar`, and every write brackets the change with its
///   `willSet` and `didSet`, whether anything observes or not (tens of nanoseconds per access
///   instead of about one; see the README's benchmark). The registrar is created on first
///   access. Models that don't adopt this protocol pay nothing for it.
public protocol ObservationBridging: ObservableModel, Observable {}

extension ObservationBridging {
  /// Reports a read of `keyPath` of `object`, a model of this type, to its registrar.
  @usableFromInline
  static func _access<Root, Value>(_ object: Root, _ keyPath: KeyPath<Root, Value>) {
    guard let model = object as? Self, let keyPath = keyPath as? KeyPath<Self, Value> else {
      return
    }
    model.observation.state(of: model).registrar.access(model, keyPath: keyPath)
  }

  /// Runs `mutation`, a write of `keyPath` of `object`, a model of this type, between its
  /// registrar's `willSet` and `didSet`.
  @usableFromInline
  static func _mutation<Root, Value>(
    _ object: Root, _ keyPath: KeyPath<Root, Value>, _ mutation: () -> Void
  ) {
    guard let model = object as? Self, let keyPath = keyPath as? KeyPath<Self, Value> else {
      return mutation()
    }
    model.observation.state(of: model).registrar.withMutation(
      of: model, keyPath: keyPath, mutation)
  }
}

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
/// let user = User()
/// withObservationTracking {
///   _ = user.name
/// } onChange: {
///   print("will change")
/// }
/// ```
///
/// - Note: The cost is Swift Observation's: every read of a property of such a model reports
///   the access to an `ObservationRegistrar`, and every write brackets the change with its
///   `willSet` and `didSet`, whether anything observes or not (tens of nanoseconds per access
///   instead of about one; see Benchmarks/README.md). The registrar is created on first
///   access. Models that don't adopt this protocol pay nothing for it.
public protocol ObservationBridging: ObservableModel, Observable {}

extension ObservableModel {
  /// Whether the model reports to Swift Observation (``ObservationBridging``).
  @inlinable
  public static var _bridgesSwiftObservation: Bool { false }

  /// Reports a read to Swift Observation (only models adopting ``ObservationBridging`` do).
  @inlinable
  public func _observationAccess<Value>(_ keyPath: KeyPath<Self, Value>) {}

  /// Runs a write, bracketed for Swift Observation (only models adopting
  /// ``ObservationBridging`` bracket it).
  @inlinable
  public func _observationMutation<Value>(
    _ keyPath: KeyPath<Self, Value>, _ mutation: () -> Void
  ) {
    mutation()
  }
}

extension ObservationBridging {
  /// Whether the model reports to Swift Observation: `true`.
  @inlinable
  public static var _bridgesSwiftObservation: Bool { true }

  /// Reports a read to the model's `ObservationRegistrar`.
  public func _observationAccess<Value>(_ keyPath: KeyPath<Self, Value>) {
    observation.state(of: self).registrar.access(self, keyPath: keyPath)
  }

  /// Runs a write between the registrar's `willSet` and `didSet`.
  public func _observationMutation<Value>(
    _ keyPath: KeyPath<Self, Value>, _ mutation: () -> Void
  ) {
    observation.state(of: self).registrar.withMutation(of: self, keyPath: keyPath, mutation)
  }
}

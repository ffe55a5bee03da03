/// A registration you own: observation ends when you cancel the token or release it.
///
/// The callbacks behind a token never reach anything after ``cancel()`` returns on the
/// calling thread (a delivery already running on another thread may finish), and never after
/// the observed object was deallocated. Cancelling twice is harmless.
///
/// ```swift
/// var tokens = Set<ObservationToken>()
/// user.observe(\.name) { print($0.newValue) }.store(in: &tokens)
/// ```
public final class ObservationToken: Sendable, Hashable {
  private let lifetimes: [_Lifetime]

  @usableFromInline
  init(_ records: [_Record]) { self.lifetimes = records.map { $0.lifetime } }

  /// Runs `action` once when the registration ends, whoever ends it (a cancel, the token's
  /// release, the observed object's deallocation or deletion); at once if it already ended. For
  /// the package's other modules, which must hear that the object they observe is gone.
  @usableFromInline
  package func onEnd(_ action: @escaping @Sendable () -> Void) {
    guard let lifetime = lifetimes.first else { return action() }
    lifetime.onEnd(action)
  }

  /// A token that runs `onCancel` once, when it is cancelled or released (for registrations
  /// that the package's other modules keep themselves, such as a relation controller's change
  /// handlers).
  @usableFromInline
  package init(onCancel: @escaping @Sendable () -> Void) {
    let lifetime = _Lifetime()
    lifetime.onEnd(onCancel)
    self.lifetimes = [lifetime]
  }

  deinit {
    for lifetime in lifetimes { lifetime.cancel() }
  }

  /// Whether the observation is still running (not cancelled, and its object neither
  /// deallocated nor deleted).
  public var isActive: Bool { lifetimes.contains { $0.isActive } }

  /// Ends the observation. Idempotent.
  ///
  /// - Complexity: O(1) per observed key path; the entries left in the observed object are
  ///   unlinked by its next change.
  public func cancel() {
    for lifetime in lifetimes { lifetime.cancel() }
  }

  /// Keeps the token in `set` (the observation lives as long as the set holds it).
  ///
  /// ```swift
  /// var tokens = Set<ObservationToken>()
  /// user.observe(\.name) { print($0.newValue) }.store(in: &tokens)
  /// tokens.removeAll()  // ends the observation
  /// ```
  ///
  /// - Parameter set: The set that keeps the token.
  /// - Complexity: Expected O(1).
  public func store(in set: inout Set<ObservationToken>) { set.insert(self) }

  /// Keeps the token in `array` (the observation lives as long as the array holds it).
  ///
  /// ```swift
  /// var tokens: [ObservationToken] = []
  /// user.observe(\.name) { print($0.newValue) }.store(in: &tokens)
  /// ```
  ///
  /// - Parameter array: The array that keeps the token.
  /// - Complexity: Amortized O(1).
  public func store(in array: inout [ObservationToken]) { array.append(self) }

  /// Tokens are equal when they are the same token.
  ///
  /// - Parameters:
  ///   - lhs: A token.
  ///   - rhs: Another token.
  /// - Returns: `lhs === rhs`.
  public static func == (lhs: ObservationToken, rhs: ObservationToken) -> Bool { lhs === rhs }

  /// Hashes the token's identity.
  ///
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

import Binding
import Testing

/// Counts live instances of the objects that hold one of its leases, so that a test fails when
/// observers, targets, receivers, models, controllers or what they captured outlive their scope
/// (after swift-collections' `LifetimeTracked`).
public final class LifetimeTracker: Sendable {
  private let counts = _Lock<(live: Int, created: Int)>((0, 0))

  /// Creates a tracker with nothing leased.
  public init() {}

  /// The number of leased objects still alive.
  public var live: Int { counts.withLock { $0.live } }
  /// The number of leases handed out.
  public var created: Int { counts.withLock { $0.created } }

  /// A lease for one object: keep it in a stored property; it ends when the object dies.
  ///
  /// - Returns: The lease.
  public func lease() -> Lease {
    counts.withLock { counts in
      counts.live += 1
      counts.created += 1
    }
    return Lease(tracker: self)
  }

  fileprivate func end() { counts.withLock { $0.live -= 1 } }

  /// Ends with the object that stores it.
  public final class Lease: Sendable {
    private let tracker: LifetimeTracker
    fileprivate init(tracker: LifetimeTracker) { self.tracker = tracker }
    deinit { tracker.end() }
  }
}

/// Runs `body` with a fresh tracker and fails if anything it leased is still alive afterwards.
///
/// - Parameters:
///   - sourceLocation: Where a failure is reported.
///   - body: The scope; it leases what it creates.
/// - Returns: What `body` returns.
public func withLifetimeTracking<R>(
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: (LifetimeTracker) throws -> R
) rethrows -> R {
  let tracker = LifetimeTracker()
  let result = try body(tracker)
  #expect(
    tracker.live == 0, "\(tracker.live) tracked object(s) outlived their scope",
    sourceLocation: sourceLocation)
  return result
}

/// Async form of `withLifetimeTracking(_:)`.
///
/// - Parameters:
///   - isolation: The caller's isolation; leave the default.
///   - sourceLocation: Where a failure is reported.
///   - body: The scope; it leases what it creates.
/// - Returns: What `body` returns.
public func withLifetimeTracking<R>(
  isolation: isolated (any Actor)? = #isolation,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: (LifetimeTracker) async throws -> R
) async rethrows -> R {
  let tracker = LifetimeTracker()
  let result = try await body(tracker)
  #expect(
    tracker.live == 0, "\(tracker.live) tracked object(s) outlived their scope",
    sourceLocation: sourceLocation)
  return result
}

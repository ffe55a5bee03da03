import Testing

/// Counts live instances of the objects that hold one of its leases, so a test can fail when
/// observers, targets, receivers or models outlive their scope (after swift-collections'
/// `LifetimeTracked`).
final class LifetimeTracker: Sendable {
  private let counts = TSanVisibleLock<(live: Int, created: Int)>((0, 0))

  /// The number of leased objects still alive.
  var live: Int { counts.withLock { $0.live } }
  /// The number of leases handed out.
  var created: Int { counts.withLock { $0.created } }

  /// A lease for one object: keep it in a stored property; it ends when the object dies.
  func lease() -> Lease {
    counts.withLock { counts in
      counts.live += 1
      counts.created += 1
    }
    return Lease(tracker: self)
  }

  fileprivate func end() { counts.withLock { $0.live -= 1 } }

  /// Ends with the object that stores it.
  final class Lease: Sendable {
    private let tracker: LifetimeTracker
    fileprivate init(tracker: LifetimeTracker) { self.tracker = tracker }
    deinit { tracker.end() }
  }
}

/// Runs `body` with a fresh tracker and fails if anything it leased is still alive afterwards.
func withLifetimeTracking<R>(
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
func withLifetimeTracking<R>(
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

import Testing

/// Counts live instances of the objects that hold one of its leases, so that a test fails when
/// something a controller or a tracker was given (a closure's captures, a delegate, a model)
/// outlives its scope (after swift-collections' `LifetimeTracked`; BindingTests has the same
/// helper for its own fixtures).
final class LifetimeTracker: Sendable {
  private let counts = TrackerTestLock<(live: Int, created: Int)>((0, 0))

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

/// An object whose only job is to be captured (by a filter, a handler, a delegate) and counted.
final class Payload {
  let lease: LifetimeTracker.Lease
  var uses = 0

  init(_ tracker: LifetimeTracker) { lease = tracker.lease() }

  func use() { uses += 1 }
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

/// Weak references to many objects, to check that none outlived its scope.
struct WeakObjects<Object: AnyObject> {
  private var boxes: [() -> Object?] = []

  mutating func append(_ object: Object) {
    boxes.append { [weak object] in object }
  }

  mutating func append(contentsOf objects: some Sequence<Object>) {
    for object in objects { append(object) }
  }

  mutating func append(contentsOf other: WeakObjects) {
    boxes += other.boxes
  }

  /// How many are still alive.
  var alive: Int { boxes.count { $0() != nil } }
  var count: Int { boxes.count }
}

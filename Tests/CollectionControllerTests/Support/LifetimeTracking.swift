import TestSupport

/// An object whose only job is to be captured (by a filter, a handler, a delegate) and counted.
final class Payload {
  let lease: LifetimeTracker.Lease
  var uses = 0

  init(_ tracker: LifetimeTracker) { lease = tracker.lease() }

  func use() { uses += 1 }
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

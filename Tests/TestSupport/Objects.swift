import Foundation

/// An object whose only job is to be captured (by a filter, a handler, a delegate) and counted.
public final class Payload {
  let lease: LifetimeTracker.Lease
  /// How many times it was used.
  public private(set) var uses = 0

  /// Creates a payload counted by `tracker`.
  public init(_ tracker: LifetimeTracker) { lease = tracker.lease() }

  /// Records a use.
  public func use() { uses += 1 }
}

/// Weak references to many objects, to check that none outlived its scope.
public struct WeakObjects<Object: AnyObject> {
  /// Creates an empty set.
  public init() {}

  private var boxes: [() -> Object?] = []

  /// Adds a weak reference to `object`.
  public mutating func append(_ object: Object) {
    boxes.append { [weak object] in object }
  }

  /// Adds weak references to `objects`.
  public mutating func append(contentsOf objects: some Sequence<Object>) {
    for object in objects { append(object) }
  }

  /// Adds the references of `other`.
  public mutating func append(contentsOf other: WeakObjects) {
    boxes += other.boxes
  }

  /// How many are still alive.
  public var alive: Int { boxes.count { $0() != nil } }
  /// How many are referenced.
  public var count: Int { boxes.count }
}

/// A value handed to one other thread at a time.
public struct Handed<Value>: @unchecked Sendable {  // Safe: the tests serialise the hand-over.
  /// The value.
  public let value: Value

  /// Wraps `value`.
  public init(value: Value) { self.value = value }
}

/// Runs `body(index)` on `count` new threads at once and waits for all of them.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
  let group = DispatchGroup()
  for index in 0..<count {
    group.enter()
    let thread = Thread {
      body(index)
      group.leave()
    }
    thread.start()
  }
  group.wait()
}

import Binding
import CollectionController
import Dispatch
import Foundation

extension DependencyTrackerTests {
  /// An order; `==` is always true, so any test passing through `==` would fail.
  final class Order: ObservableModel, Equatable {
    let observation = ObservationStorage()
    let label: String
    @Observed var total = 0
    @Observed var status = "new"
    var summary: String { "\(status) \(total)" }

    init(_ label: String) { self.label = label }

    static func == (lhs: Order, rhs: Order) -> Bool { true }
  }

  /// A customer: a second model type.
  final class Customer: ObservableModel {
    let observation = ObservationStorage()
    let label: String
    @Observed var name = ""

    init(_ label: String) { self.label = label }
  }
}

/// The label of a test model (`let`, so reading it from any thread is safe).
func label(of object: any ObservableModel) -> String {
  switch object {
  case let order as DependencyTrackerTests.Order: order.label
  case let customer as DependencyTrackerTests.Customer: customer.label
  default: "?"
  }
}

/// An event as text: `"-a"` for a deletion of `a`, `"a[total,status]"` for an update.
func describe(_ event: DependencyEvent) -> String {
  switch event {
  case .deleted(let object): "-\(label(of: object))"
  case .updated(let object, let changes):
    "\(label(of: object))[\(changes.names.joined(separator: ","))]"
  }
}

/// A value behind a lock that ThreadSanitizer understands.
///
/// `Synchronization.Mutex` locks with futex system calls on Linux, which ThreadSanitizer does not
/// see, so it reports every access it protects as a race; `NSLock` is a pthread mutex there.
final class TrackerTestLock<Value>: @unchecked Sendable {
  // Safe: `value` is only touched while `lock` is held.
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}

/// A thread-safe list of strings.
final class Lines: Sendable {
  private let lines = TrackerTestLock<[String]>([])

  func append(_ line: String) { lines.withLock { $0.append(line) } }

  var all: [String] { lines.withLock { $0 } }

  func removeAll() { lines.withLock { $0 = [] } }
}

/// A value handed to one other thread at a time.
struct Handed<Value>: @unchecked Sendable {  // Safe: the tests serialise the hand-over.
  let value: Value
}

/// Runs `body(index)` on `count` new threads at once and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
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

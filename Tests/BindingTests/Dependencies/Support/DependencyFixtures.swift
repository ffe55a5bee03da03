import Binding
import Dispatch
import Foundation
import TestSupport

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
func describe(_ event: ModelEvent<any ObservableModel>) -> String {
  switch event {
  case .deleted(let object): "-\(label(of: object))"
  case .updated(let object, let changes):
    "\(label(of: object))[\(changes.names.joined(separator: ","))]"
  }
}

/// A thread-safe list of strings.
final class Lines: Sendable {
  private let lines = _Lock<[String]>([])

  func append(_ line: String) { lines.withLock { $0.append(line) } }

  var all: [String] { lines.withLock { $0 } }

  func removeAll() { lines.withLock { $0 = [] } }
}

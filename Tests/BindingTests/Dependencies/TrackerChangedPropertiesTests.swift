import Binding
import Testing

/// The changes in a `DependencyTracker`'s events: `ChangedProperties<any ObservableModel>`.
@Suite struct TrackerChangedPropertiesTests {}

extension TrackerChangedPropertiesTests {
  typealias Order = DependencyTrackerTests.Order
  typealias Customer = DependencyTrackerTests.Customer

  /// The changes of `order` reported for `body`.
  private func changes(of order: Order, _ body: () -> Void) throws -> ChangedProperties<
    any ObservableModel
  > {
    var changes: [ChangedProperties<any ObservableModel>] = []
    let tracker = DependencyTracker { if let change = $0.changes { changes.append(change) } }
    tracker.add(order)
    body()
    #expect(changes.count == 1)
    return try #require(changes.first)
  }

  @Test func namesAreUniqueInOrderOfFirstChange() throws {
    let order = Order("o")
    let changes = try changes(of: order) {
      coalesce {
        order.status = "a"
        order.total = 1
        order.status = "b"
      }
    }
    #expect(changes.names == ["status", "total"])
    #expect(changes.count == 2)
  }

  @Test(arguments: [("total", true), ("summary", true), ("status", false)])
  func containsTellsWhetherAKeyPathReadsAChangedProperty(
    property: String, expected: Bool
  ) throws {
    let order = Order("o")
    let changes = try changes(of: order) { order.total = 1 }
    let contained =
      switch property {
      case "total": changes.contains(\Order.total)
      case "summary": changes.contains(\Order.summary)  // computed: reads total and status
      default: changes.contains(\Order.status)
      }
    #expect(contained == expected)
  }

  @Test func aKeyPathOfAnotherTypeIsNeverContained() throws {
    let order = Order("o")
    let changes = try changes(of: order) { coalesce { order.total = 1 } }
    #expect(!changes.contains(\Customer.name))
  }
}

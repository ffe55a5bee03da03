import Binding
import Testing

/// The events of a `DependencyTracker`: `ModelEvent<any ObservableModel>`.
@Suite struct TrackerEventTests {}

extension TrackerEventTests {
  typealias Order = DependencyTrackerTests.Order
  typealias Customer = DependencyTrackerTests.Customer

  /// Records the events a tracker of `models` reports while `body` runs.
  private func events(
    of models: [any ObservableModel], _ body: () -> Void
  ) -> [ModelEvent<any ObservableModel>] {
    var events: [ModelEvent<any ObservableModel>] = []
    let tracker = DependencyTracker { events.append($0) }
    for model in models {
      if let order = model as? Order { tracker.add(order) }
      if let customer = model as? Customer { tracker.add(customer) }
    }
    body()
    return events
  }

  @Test func anUpdateGivesItsTypedObjectAndChanges() throws {
    let order = Order("o")
    let event = try #require(events(of: [order]) { order.total = 3 }.first)
    #expect(event.object === order)
    #expect(event.object(as: Order.self) === order)
    #expect(event.object(as: Customer.self) == nil)
    #expect(!event.isDeletion)
    #expect(event.changes?.names == ["total"])
    guard case .updated(let typed as Order, let changes) = event else {
      Issue.record("expected an update of an Order")
      return
    }
    #expect(typed.total == 3 && changes.contains(\Order.total))
  }

  @Test func aDeletionGivesItsObjectAndNoChanges() throws {
    let customer = Customer("c")
    let event = try #require(events(of: [customer]) { customer.announceDeletion() }.first)
    #expect(event.isDeletion)
    #expect(event.changes == nil)
    #expect(event.object(as: Customer.self) === customer)
  }
}

import Binding
import TestSupport
import Testing

// Lifetimes of trackers and what they track, and calls that change nothing (moved here with
// the tracker from CollectionController, whose tests they were).

// MARK: - Dependency trackers

/// A model that owns a tracker that tracks the model itself.
private final class Screen: ObservableModel {
  let observation = ObservationStorage()
  @Observed var title = ""
  var tracker: DependencyTracker?
  var heard: [String] = []
}

extension DependencyTrackerTests {
  @Test func aDroppedTrackerReleasesItsHandlersAndNotItsDependencies() {
    let order = Order("o")
    withLifetimeTracking { tracker in
      weak var weakTracker: DependencyTracker?
      do {
        let handling = Payload(tracker)
        let dismissing = Payload(tracker)
        let dependencies = DependencyTracker(onDismiss: { dismissing.use() }) { _ in
          handling.use()
        }
        dependencies.add(order)
        order.total = 1
        #expect(handling.uses == 1)
        weakTracker = dependencies
      }
      #expect(weakTracker == nil)
    }
    order.total = 2  // nothing observes it any more
    order.announceDeletion()
    #expect(order.isDeleted)
  }

  @Test func trackedModelsAreNotRetained() {
    let dependencies = DependencyTracker(delivery: .synchronous) { _ in }
    var models = WeakObjects<Order>()
    do {
      let orders = (0..<5).map { Order("o\($0)") }
      models.append(contentsOf: orders)
      for order in orders { dependencies.add(order) }
      coalesce { for order in orders { order.total += 1 } }
      withExtendedLifetime(orders) { #expect(dependencies.count == 5) }  // release ends it early
    }
    #expect(models.alive == 0)
    #expect(dependencies.isEmpty)
  }

  /// A model keeps a tracker that tracks the model: no cycle, both go together.
  @Test func aModelTrackingItself() {
    weak var weakScreen: Screen?
    weak var weakTracker: DependencyTracker?
    do {
      let screen = Screen()
      let tracker = DependencyTracker(delivery: .synchronous) { [weak screen] event in
        screen?.heard.append(event.isDeletion ? "deleted" : "updated")
      }
      screen.tracker = tracker
      tracker.add(screen)
      screen.title = "Orders"
      #expect(screen.heard == ["updated"])
      weakScreen = screen
      weakTracker = tracker
    }
    #expect(weakScreen == nil)
    #expect(weakTracker == nil)
  }
}

extension DependencyTrackerTests {
  /// Removing what the tracker does not hold, adding what it holds or a deleted model: `false`,
  /// and the tracker is as it was.
  @Test func trackerCallsThatChangeNothing() {
    let a = Order("a")
    let b = Order("b")
    let stranger = Order("stranger")
    let deleted = Order("deleted")
    deleted.announceDeletion()
    var lines: [String] = []
    let tracker = DependencyTracker(delivery: .synchronous) { lines.append(describe($0)) }
    tracker.add(a)
    tracker.add(b)
    let before = tracker.dependencies.map(ObjectIdentifier.init)

    #expect(!tracker.remove(stranger))
    #expect(!tracker.add(a))
    #expect(!tracker.add(deleted))

    #expect(tracker.dependencies.map(ObjectIdentifier.init) == before)
    #expect(tracker.count == 2)
    #expect(!tracker.contains(stranger) && !tracker.contains(deleted))
    #expect(lines.isEmpty)
    stranger.total = 1
    a.total = 1
    b.status = "paid"
    #expect(lines == ["a[total]", "b[status]"])
  }
}

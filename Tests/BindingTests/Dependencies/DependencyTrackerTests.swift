import Binding
import Foundation
import TestSupport
import Testing

@Suite struct DependencyTrackerTests {}

// MARK: - The set

extension DependencyTrackerTests {
  @Test func addingTwiceAddsOnce() {
    let order = Order("a")
    let tracker = DependencyTracker { _ in }
    #expect(tracker.add(order))
    #expect(!tracker.add(order))
    #expect(tracker.count == 1)
    #expect(tracker.dependencies.count == 1)
    #expect(tracker.dependencies.first === order)
  }

  @Test func addedTwiceReportsOnce() async {
    let order = Order("a")
    await confirmation(expectedCount: 1) { updated in
      let tracker = DependencyTracker { _ in updated() }
      tracker.add(order)
      tracker.add(order)
      order.total = 1
    }
  }

  @Test func containsRemoveAndRemoveAllGoByIdentity() {
    let a = Order("a")
    let twin = Order("twin")  // `a == twin`, but it is another object
    let customer = Customer("c")
    let tracker = DependencyTracker { _ in }
    tracker.add(a)
    tracker.add(customer)
    #expect(a == twin)
    #expect(tracker.contains(a) && tracker.contains(customer))
    #expect(!tracker.contains(twin))
    #expect(!tracker.remove(twin))
    #expect(tracker.count == 2)
    #expect(tracker.dependencies.map { label(of: $0) } == ["a", "c"])

    #expect(tracker.remove(a))
    #expect(!tracker.remove(a))
    #expect(!tracker.contains(a))
    #expect(tracker.dependencies.map { label(of: $0) } == ["c"])

    tracker.add(a)
    tracker.removeAll()
    #expect(tracker.isEmpty && tracker.dependencies.isEmpty)
    #expect(!tracker.contains(a) && !tracker.contains(customer))
  }

  @Test func aDeletedModelIsNotAdded() {
    let order = Order("a")
    order.announceDeletion()
    let tracker = DependencyTracker { _ in Issue.record("no event expected") }
    #expect(!tracker.add(order))
    #expect(tracker.isEmpty)
  }

  @Test func objectsOfDifferentTypesAreTrackedTogether() throws {
    let order = Order("o")
    let customer = Customer("c")
    var events: [ModelEvent<any ObservableModel>] = []
    let tracker = DependencyTracker { events.append($0) }
    tracker.add(order)
    tracker.add(customer)
    order.total = 10
    customer.name = "Ada"
    #expect(events.map(describe) == ["o[total]", "c[name]"])
    let first = try #require(events.first)
    #expect(first.object(as: Order.self) === order)
    #expect(first.object(as: Customer.self) == nil)
    #expect(events.last?.object(as: Customer.self) === customer)
    #expect(first.changes?.contains(\Order.total) == true)
    #expect(first.changes?.contains(\Customer.name) == false)
    #expect(events.last?.changes?.contains(\Customer.name) == true)
  }
}

// MARK: - Updates

extension DependencyTrackerTests {
  @Test func eachChangeOutsideCoalescingIsOneUpdate() async {
    let order = Order("o")
    var lines: [String] = []
    await confirmation(expectedCount: 3) { updated in
      let tracker = DependencyTracker { event in
        lines.append(describe(event))
        updated()
      }
      tracker.add(order)
      order.total = 1
      order.total = 2
      order.status = "paid"
    }
    #expect(lines == ["o[total]", "o[total]", "o[status]"])
  }

  @Test func aCoalescedBlockIsOneUpdatePerObjectWithItsChangedProperties() async {
    let order = Order("o")
    let customer = Customer("c")
    var events: [ModelEvent<any ObservableModel>] = []
    await confirmation(expectedCount: 2) { updated in
      let tracker = DependencyTracker { event in
        events.append(event)
        updated()
      }
      tracker.add(order)
      tracker.add(customer)
      coalesce {
        order.total = 1
        customer.name = "Ada"
        order.status = "paid"
        order.total = 2
        coalesce { customer.name = "Ada Lovelace" }
        #expect(events.isEmpty, "nothing is reported before the block ends")
      }
    }
    #expect(events.map(describe) == ["o[total,status]", "c[name]"])
    let changes = events.first?.changes
    #expect(changes?.count == 2)
    #expect(changes?.contains(\Order.total) == true)
    #expect(changes?.contains(\Order.summary) == true)  // computed, reads total and status
    #expect(changes?.contains(\Customer.name) == false)
  }

  @Test func anUntouchedPropertyIsNotAmongTheChanges() throws {
    let order = Order("o")
    var events: [ModelEvent<any ObservableModel>] = []
    let tracker = DependencyTracker { events.append($0) }
    tracker.add(order)
    order.status = "paid"
    let changes = try #require(events.first?.changes)
    #expect(!changes.contains(\Order.total))
    #expect(changes.contains(\Order.status))
    #expect(changes.names == ["status"])
  }
}

// MARK: - Deletions

extension DependencyTrackerTests {
  @Test func aDeletionIsReportedAfterTheObjectLeftTheSet() async {
    let order = Order("o")
    let customer = Customer("c")
    await confirmation(expectedCount: 1) { deleted in
      var tracker: DependencyTracker?
      tracker = DependencyTracker { event in
        guard case .deleted(let object) = event else { return }
        #expect(object === order)
        #expect(tracker?.contains(order) == false)
        #expect(tracker?.count == 1)
        deleted()
      }
      tracker?.add(order)
      tracker?.add(customer)
      order.announceDeletion()
      order.announceDeletion()  // a second announcement does nothing
      order.total = 5  // a deleted model notifies nobody
      #expect(tracker?.contains(order) == false)
      #expect(tracker?.dependencies.map { label(of: $0) } == ["c"])
      tracker = nil  // the handler holds the variable: a cycle until it is cleared
    }
  }

  @Test func deletionsComeBeforeUpdatesInOneBlock() {
    let a = Order("a")
    let b = Order("b")
    let c = Customer("c")
    let d = Customer("d")
    let e = Order("e")
    var lines: [String] = []
    let tracker = DependencyTracker { lines.append(describe($0)) }
    for order in [a, b, e] { tracker.add(order) }
    tracker.add(c)
    tracker.add(d)
    coalesce {
      a.total = 1
      b.announceDeletion()
      c.name = "x"
      e.total = 3  // changed, then deleted: reported deleted only
      e.announceDeletion()
      d.announceDeletion()
      a.status = "y"
    }
    #expect(lines == ["-b", "-e", "-d", "a[total,status]", "c[name]"])
    #expect(tracker.dependencies.map { label(of: $0) } == ["a", "c"])
  }

  @Test func dismissalRunsOncePerTransactionThatDeleted() async {
    let orders = (0..<5).map { Order("o\($0)") }
    var lines: [String] = []
    await confirmation(expectedCount: 3) { dismissed in
      let tracker = DependencyTracker(onDismiss: {
        lines.append("dismiss")
        dismissed()
      }) { lines.append(describe($0)) }
      for order in orders { tracker.add(order) }
      coalesce {
        orders[0].announceDeletion()
        orders[1].announceDeletion()
        orders[2].announceDeletion()
      }
      orders[3].announceDeletion()
      orders[4].total = 1  // an update alone never dismisses
      orders[4].announceDeletion()
    }
    #expect(
      lines == ["-o0", "-o1", "-o2", "dismiss", "-o3", "dismiss", "o4[total]", "-o4", "dismiss"])
  }

  @Test func dismissalCanBeTurnedOff() async {
    let orders = (0..<4).map { Order("o\($0)") }
    await confirmation(expectedCount: 0) { dismissed in
      await confirmation(expectedCount: 4) { deleted in
        let tracker = DependencyTracker(dismissOnDeletion: false, onDismiss: { dismissed() }) {
          if $0.isDeletion { deleted() }
        }
        #expect(!tracker.dismissesOnDeletion)
        for order in orders { tracker.add(order) }
        coalesce {
          orders[0].announceDeletion()
          orders[1].announceDeletion()
        }
        orders[2].announceDeletion()
        orders[3].announceDeletion()
      }
    }
  }

  @Test func dismissalCanBeTurnedOffAndOnLater() async {
    let orders = (0..<3).map { Order("o\($0)") }
    await confirmation(expectedCount: 2) { dismissed in
      let tracker = DependencyTracker(onDismiss: { dismissed() }) { _ in }
      for order in orders { tracker.add(order) }
      orders[0].announceDeletion()
      tracker.dismissesOnDeletion = false
      orders[1].announceDeletion()
      tracker.dismissesOnDeletion = true
      orders[2].announceDeletion()
    }
  }
}

extension DependencyTrackerTests {
  @Test func theDeletionsAnnouncedByADeletionsObserversAreOneTransaction() async {
    let orders = (0..<4).map { Order("o\($0)") }
    var lines: [String] = []
    var cascade: ObservationToken?
    await confirmation(expectedCount: 1) { dismissed in
      let tracker = DependencyTracker(onDismiss: {
        lines.append("dismiss")
        dismissed()
      }) { lines.append(describe($0)) }
      for order in orders { tracker.add(order) }
      // A store's cascade, registered after the tracker: deleting the first order deletes the
      // others from its observer.
      cascade = orders[0].observeEvents(delivery: .synchronous) { event in
        guard event.isDeletion else { return }
        for order in orders.dropFirst() { order.announceDeletion() }
      }
      orders[0].announceDeletion()
    }
    #expect(lines == ["-o0", "-o1", "-o2", "-o3", "dismiss"])
    #expect(cascade?.isActive == false)
  }
}

// MARK: - Removal and lifetime

extension DependencyTrackerTests {
  @Test func aRemovedDependencyIsNoLongerReported() async {
    let order = Order("o")
    let customer = Customer("c")
    var lines: [String] = []
    let tracker = DependencyTracker { lines.append(describe($0)) }
    tracker.add(order)
    tracker.add(customer)
    tracker.remove(order)
    order.total = 1
    order.announceDeletion()
    coalesce {
      customer.name = "x"
      tracker.remove(customer)  // its change in this block is dropped too
    }
    #expect(lines.isEmpty)
    tracker.add(customer)
    customer.name = "y"
    #expect(lines == ["c[name]"])
  }

  @Test func aDeallocatedTrackerReportsNothing() async {
    let order = Order("o")
    weak var released: DependencyTracker?
    await confirmation(expectedCount: 0) { reported in
      do {
        let tracker = DependencyTracker(onDismiss: { reported() }) { _ in reported() }
        tracker.add(order)
        released = tracker
      }
      #expect(released == nil, "the tracker is not kept alive by its observations")
      order.total = 1
      coalesce { order.status = "x" }
      order.announceDeletion()
    }
  }

  @Test func aTrackerDroppedInsideABlockReportsNothing() async {
    let order = Order("o")
    await confirmation(expectedCount: 0) { reported in
      var tracker: DependencyTracker? = DependencyTracker { _ in reported() }
      tracker?.add(order)
      coalesce {
        order.total = 1
        tracker = nil
      }
    }
  }

  @Test func dependenciesAreHeldWeakly() async {
    weak var released: Order?
    let tracker = DependencyTracker { _ in Issue.record("no event expected") }
    do {
      let order = Order("o")
      tracker.add(order)
      #expect(tracker.count == 1)
      released = order
    }
    #expect(released == nil, "the tracker does not keep its dependencies alive")
    #expect(tracker.count == 0)
    #expect(tracker.dependencies.isEmpty)
  }

  @Test func manyDeallocatedDependenciesArePurged() {
    let tracker = DependencyTracker { _ in }
    for index in 0..<100 { tracker.add(Order("o\(index)")) }
    let kept = Order("kept")
    tracker.add(kept)
    #expect(tracker.count == 1)
    #expect(tracker.contains(kept))
  }
}

// MARK: - Re-entrancy

extension DependencyTrackerTests {
  @Test func aHandlerMayChangeDependenciesAndTheTracker() {
    let a = Order("a")
    let b = Order("b")
    let c = Customer("c")
    var lines: [String] = []
    var tracker: DependencyTracker?
    tracker = DependencyTracker { event in
      lines.append(describe(event))
      if event.object === a, a.total == 1 {
        b.total = 9  // a new transaction, delivered after this batch
        tracker?.remove(c)  // c's update later in this batch is not delivered
      }
    }
    tracker?.add(a)
    tracker?.add(b)
    tracker?.add(c)
    coalesce {
      a.total = 1
      c.name = "x"
    }
    #expect(lines == ["a[total]", "b[total]"])
    tracker = nil  // the handler holds the variable: a cycle until it is cleared
  }
}

// MARK: - Delivery

extension DependencyTrackerTests {
  @MainActor @Test func aMainActorHandlerHearsOnTheMainActor() async {
    let order = Order("o")
    var lines: [String] = []
    let (stream, continuation) = AsyncStream.makeStream(of: String.self)
    let tracker = DependencyTracker { event in
      MainActor.assertIsolated("a tracker made on the main actor delivers there")
      lines.append(describe(event))
      continuation.yield(describe(event))
    }
    tracker.add(order)
    order.total = 1
    if Thread.isMainThread {
      // On the main thread itself Binding delivers at once. (Swift Testing on Linux may run
      // the main actor on another thread, where delivery is queued.)
      #expect(lines == ["o[total]"])
    }

    let handed = Handed(value: order)
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      Thread {
        handed.value.status = "paid"
        coalesce {
          handed.value.total = 2
          handed.value.total = 3
        }
        done.resume()
      }.start()
    }
    var heard: [String] = []
    for await line in stream {
      heard.append(line)
      if heard.count == 3 { break }
    }
    #expect(heard == ["o[total]", "o[status]", "o[total]"])
    #expect(lines == heard)
  }

  @Test func queueDeliveryKeepsTheOrderOfTransactions() async {
    let order = Order("o")
    let queue = DispatchQueue(label: "DependencyTrackerTests.queue")
    let lines = Lines()
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    let tracker = DependencyTracker(
      delivery: .queue(queue), onDismiss: { lines.append("dismiss") }
    ) { event in
      dispatchPrecondition(condition: .onQueue(queue))
      lines.append(event.isDeletion ? "deleted" : "updated")
      if event.isDeletion { continuation.finish() }
    }
    tracker.add(order)
    order.total = 1
    coalesce { order.total = 2 }
    order.announceDeletion()
    for await _ in stream {}
    queue.sync {}
    #expect(lines.all == ["updated", "updated", "deleted", "dismiss"])
  }
}

// MARK: - Threads

extension DependencyTrackerTests {
  /// Six threads share one tracker; each adds, mutates, deletes and removes its own objects.
  @Test func concurrentAddRemoveAndMutation() {
    let threads = 6
    let kept = 8
    let doomed = 6
    let rounds = 20
    typealias Tally = (updates: [String: Int], deletions: [String: Int], afterDeletion: Int)
    let events = _Lock<Tally>(([:], [:], 0))
    let dismissals = _Lock(0)
    // Reads only `let` labels: a handler delivering another thread's batch must not read
    // properties that thread may be writing.
    let tracker = DependencyTracker(
      delivery: .synchronous, onDismiss: { dismissals.withLock { $0 += 1 } }
    ) { event in
      let name = label(of: event.object)
      events.withLock { events in
        if events.deletions[name] != nil { events.afterDeletion += 1 }
        if event.isDeletion {
          events.deletions[name, default: 0] += 1
        } else {
          events.updates[name, default: 0] += 1
        }
      }
    }
    let keepers = _Lock<[Handed<Order>]>([])  // the tracker holds its dependencies weakly
    onThreads(threads) { thread in
      let keptOrders = (0..<kept).map { Order("k\(thread)-\($0)") }
      keepers.withLock { $0 += keptOrders.map { Handed(value: $0) } }
      let doomedOrders = (0..<doomed).map { Order("d\(thread)-\($0)") }
      for order in keptOrders + doomedOrders { tracker.add(order) }
      for round in 0..<rounds {
        for order in keptOrders { order.total = round }  // one transaction each
        coalesce {
          for order in keptOrders + doomedOrders { order.status = "r\(round)" }
          for order in keptOrders { order.total += 1 }
        }
        let visitor = Customer("v\(thread)")  // added and removed: never reported
        tracker.add(visitor)
        precondition(tracker.contains(visitor))
        tracker.remove(visitor)
        precondition(!tracker.contains(visitor))
      }
      for order in doomedOrders.prefix(doomed - 2) { order.announceDeletion() }
      coalesce { for order in doomedOrders.suffix(2) { order.announceDeletion() } }
      precondition(keptOrders.allSatisfy(tracker.contains))
      precondition(!doomedOrders.contains(where: tracker.contains))
    }
    let (updates, deletions, afterDeletion) = events.withLock { $0 }
    for thread in 0..<threads {
      for index in 0..<kept {
        #expect(updates["k\(thread)-\(index)"] == 2 * rounds)
      }
      for index in 0..<doomed {
        #expect(deletions["d\(thread)-\(index)"] == 1)
        #expect(updates["d\(thread)-\(index)"] == rounds)
      }
      #expect(updates["v\(thread)"] == nil)
    }
    #expect(afterDeletion == 0, "nothing is reported about an object after its deletion")
    #expect(dismissals.withLock { $0 } == threads * (doomed - 1))
    #expect(tracker.count == threads * kept)
    #expect(keepers.withLock { $0.count } == tracker.count)  // keeps them alive until here
    tracker.removeAll()
    #expect(tracker.isEmpty)
  }
}

// MARK: - Deletions announced inside a block

extension DependencyTrackerTests {
  /// Binding delivers the deletion event of a `.coalesced` `observeEvents` registration
  /// announced inside `coalesce` at the end of the block (it used to drop it; the tracker was
  /// written to coalesce by itself meanwhile).
  @Test func bindingDeliversCoalescedDeletionEvents() {
    let order = Order("o")
    var heard: [String] = []
    let token = order.observeEvents(options: .coalesced, delivery: .synchronous) { event in
      if case .deleted = event { heard.append("deleted") }
    }
    coalesce { order.announceDeletion() }
    #expect(heard == ["deleted"])
    token.cancel()
  }

  /// What the tracker does get right where Binding loses the deletion above.
  @Test func theTrackerReportsDeletionsAnnouncedInABlock() {
    let order = Order("o")
    var lines: [String] = []
    let tracker = DependencyTracker { lines.append(describe($0)) }
    tracker.add(order)
    coalesce {
      order.total = 1
      order.announceDeletion()
    }
    #expect(lines == ["-o"])
  }
}

// MARK: - A deletion is never an update (issue 31, item 4)

extension DependencyTrackerTests {
  /// The tracker's change path never hears a deletion: a deleted dependency's one event is
  /// `.deleted`, with no changes, and no `.updated` comes for it: not for its deletion alone,
  /// not for writes earlier in the same block, and not for what its deletion's observers write
  /// to it (a deleted model's writes notify nobody).
  @Test func aDeletionIsNeverReportedAsAnUpdate() {
    let alone = Order("alone")
    let written = Order("written")
    var events: [ModelEvent<any ObservableModel>] = []
    let tracker = DependencyTracker(delivery: .synchronous) { events.append($0) }
    tracker.add(alone)
    tracker.add(written)
    let cascade = alone.observe(\.total, onDeletion: { alone.status = "gone" }) { _ in }
    alone.announceDeletion()
    coalesce {
      written.total = 1
      written.announceDeletion()
    }
    #expect(events.map(describe) == ["-alone", "-written"])
    #expect(events.allSatisfy { $0.changes == nil && $0.isDeletion })
    #expect(alone.status == "gone")
    cascade.cancel()
  }
}

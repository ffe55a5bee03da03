import Binding
import Testing

// The examples of the documentation comments of DependencyTracker.swift, and those of
// KeyPathChange.swift that read a tracker's events; the fixtures are in
// DocCommentExamplesTests.swift.

extension DocCommentExamplesTests {
  /// A view that closes when a dependency is deleted.
  final class TrackerView: ProfileView {
    /// `DependencyTracker`'s example.
    func trackOrder(_ order: Order, of customer: Customer) {
      let print = log
      // snippet binding-doc-tracker: Sources/Binding/Dependencies/DependencyTracker.swift
      let tracker = DependencyTracker(onDismiss: { [weak self] in self?.close() }) { event in
        switch event {
        case .updated(let order as Order, let changes) where changes.contains(\Order.total):
          print("total:", order.total)
        case .updated(let object, let changes):
          print(type(of: object), "changed:", changes.names)
        case .deleted(let object):
          print(type(of: object), "deleted")
        }
      }
      tracker.add(customer)
      tracker.add(order)

      coalesce {
        order.total = 42
        order.status = .paid
        customer.name = "Ada"
      }
      // updated(order, [total, status]), then updated(customer, [name])

      order.announceDeletion()
      // deleted(order), then onDismiss()
      // end snippet
    }
  }
}

extension DocCommentExamplesTests {
  @Test func dependencyTracker() {
    let order = Order()
    let customer = Customer()
    let view = TrackerView()
    view.trackOrder(order, of: customer)
    #expect(
      view.log.lines == [
        "total: 42", #"Customer changed: ["name"]"#, "Order deleted", "close()",
      ])
  }

  @Test func dependencyTrackerInit() {
    let order = Order()
    let print = PrintRecorder()
    func dismiss() { print("dismiss()") }
    func reload() { print("reload()") }
    // snippet binding-doc-tracker-init: Sources/Binding/Dependencies/DependencyTracker.swift
    let tracker = DependencyTracker(onDismiss: { dismiss() }) { event in
      if case .updated(_, let changes) = event, changes.contains(\Order.status) { reload() }
    }
    // end snippet
    tracker.add(order)
    order.total = 42
    order.status = .paid
    order.announceDeletion()
    #expect(print.lines == ["reload()", "dismiss()"])
  }

  /// The examples of the set's members, one after the other on one tracker.
  @Test func dependencyTrackerSet() {
    let order = Order()
    order.total = 42
    let print = PrintRecorder()
    var dismissals = 0
    func showPlaceholder() { print("showPlaceholder()") }
    let tracker = DependencyTracker(onDismiss: { dismissals += 1 }) { _ in }

    // snippet binding-doc-tracker-add: Sources/Binding/Dependencies/DependencyTracker.swift
    tracker.add(order)
    tracker.add(order)  // false: already tracked
    // end snippet
    #expect(!tracker.add(order))
    // snippet binding-doc-tracker-count: Sources/Binding/Dependencies/DependencyTracker.swift
    print(tracker.count)
    // end snippet
    // snippet binding-doc-tracker-list: Sources/Binding/Dependencies/DependencyTracker.swift
    for case let order as Order in tracker.dependencies { print(order.total) }
    // end snippet
    #expect(print.lines == ["1", "42"])

    // snippet binding-doc-tracker-remove: Sources/Binding/Dependencies/DependencyTracker.swift
    tracker.remove(order)
    // end snippet
    #expect(!tracker.contains(order))
    // snippet binding-doc-tracker-contains: Sources/Binding/Dependencies/DependencyTracker.swift
    if !tracker.contains(order) { tracker.add(order) }
    // end snippet
    #expect(tracker.contains(order))

    // snippet binding-doc-tracker-remove-all: Sources/Binding/Dependencies/DependencyTracker.swift
    tracker.removeAll()
    print(tracker.isEmpty)  // true
    // end snippet
    // snippet binding-doc-tracker-is-empty: Sources/Binding/Dependencies/DependencyTracker.swift
    if tracker.isEmpty { showPlaceholder() }
    // end snippet
    #expect(print.lines == ["1", "42", "true", "showPlaceholder()"])

    tracker.add(order)
    // snippet binding-doc-tracker-dismisses: Sources/Binding/Dependencies/DependencyTracker.swift
    tracker.dismissesOnDeletion = false
    // end snippet
    order.announceDeletion()
    #expect(dismissals == 0)
    #expect(tracker.isEmpty)
  }

  /// `ModelEvent`'s example: a model's events, and a tracker's.
  @Test func modelEvent() {
    let order = Order()
    let customer = Customer()
    let print = PrintRecorder()
    var shown: [Int] = []
    func showTotal(_ total: Int) { shown.append(total) }
    // snippet binding-doc-model-event: Sources/Binding/KeyPathChange.swift
    let token = order.observeEvents(options: .coalesced) { event in
      switch event {
      case .updated(_, let changes): print("changed:", changes.names)
      case .deleted: print("gone")
      }
    }

    let tracker = DependencyTracker { event in
      switch event {
      case .updated(let order as Order, let changes) where changes.contains(\Order.total):
        showTotal(order.total)
      case .updated(let object, _): print(type(of: object), "changed")
      case .deleted(let object): print(type(of: object), "deleted")
      }
    }
    // end snippet
    tracker.add(order)
    tracker.add(customer)
    order.total = 42
    order.status = .paid  // the order, not its total
    customer.name = "Ada"
    #expect(shown == [42])
    #expect(
      print.lines.sorted() == [
        "Customer changed", "Order changed", #"changed: ["status"]"#, #"changed: ["total"]"#,
      ])
    order.announceDeletion()
    #expect(print.lines.suffix(2).sorted() == ["Order deleted", "gone"])
    #expect(!token.isActive)
  }

  /// The examples of `ModelEvent`'s members, in a tracker's handler.
  @Test func modelEventMembers() {
    let order = Order()
    let customer = Customer()
    let print = PrintRecorder()
    func refresh(_ order: Order) { print("refresh", order.total) }
    func close() { print("close()") }
    let tracker = DependencyTracker { event in
      // snippet binding-doc-event-object: Sources/Binding/KeyPathChange.swift
      if event.object === order { refresh(order) }
      // end snippet
      // snippet binding-doc-event-object-as: Sources/Binding/KeyPathChange.swift
      if let order = event.object(as: Order.self) { refresh(order) }
      // end snippet
      // snippet binding-doc-event-changes: Sources/Binding/KeyPathChange.swift
      if event.changes?.contains(\Order.total) == true { print("total changed") }
      // end snippet
      // snippet binding-doc-event-is-deletion: Sources/Binding/KeyPathChange.swift
      if event.isDeletion { close() }
      // end snippet
    }
    tracker.add(order)
    tracker.add(customer)
    customer.name = "Ada"
    #expect(print.lines.isEmpty)
    order.status = .paid
    order.total = 42
    order.announceDeletion()
    #expect(
      print.lines == [
        "refresh 0", "refresh 0",
        "refresh 42", "refresh 42", "total changed",
        "refresh 42", "refresh 42", "close()",
      ])
  }

  /// `ChangedProperties.contains(_:)` with the model type named, in a tracker's handler.
  @Test func changedPropertiesOfATracker() {
    let order = Order()
    let customer = Customer()
    let totalLabel = Label()
    let tracker = DependencyTracker { event in
      guard case .updated(_, let changes) = event else { return }
      // snippet binding-doc-changed-properties-any: Sources/Binding/KeyPathChange.swift
      if changes.contains(\Order.total) { totalLabel.text = "\(order.total)" }
      // end snippet
    }
    tracker.add(order)
    tracker.add(customer)
    customer.name = "Ada"
    order.status = .paid
    #expect(totalLabel.text == nil)
    order.total = 42
    #expect(totalLabel.text == "42")
  }
}

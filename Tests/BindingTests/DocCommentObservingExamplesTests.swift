import Binding
import Testing

// The examples of the documentation comments of the registrations
// (ObservableModel+Observing.swift, ObservableModel+Equatable.swift) and of KeyPathChange.swift;
// the fixtures are in DocCommentExamplesTests.swift.

// MARK: Targets (methods of the view, which registers `self`)

extension DocCommentExamplesTests {
  /// The examples that register `self`, as a view would.
  final class TargetView: ProfileView {
    func printNameChanges(of user: User) {
      let print = log
      // snippet binding-doc-key-path-change: Sources/Binding/KeyPathChange.swift
      user.addTarget(self, for: \.name) { me, change in
        print("\(change.oldValue) → \(change.newValue)")
      }
      // end snippet
    }

    func showNameWithoutAnimation(of user: User) {
      // snippet binding-doc-kind: Sources/Binding/KeyPathChange.swift
      user.addTarget(self, for: \.name, options: .initial) { me, change in
        if change.isInitial { me.animates = false }
        me.title = change.newValue
      }
      // end snippet
    }

    func showNameOfSeveralKeyPaths(of user: User) {
      // snippet binding-doc-partial-key-path-change: Sources/Binding/KeyPathChange.swift
      user.addTarget(self, for: [\.name, \.age]) { me, change in
        if change.keyPath == \User.name, let name = change.newValue as? String { me.title = name }
      }
      // end snippet
    }

    func showNameOncePerTransaction(of user: User) {
      // snippet binding-doc-observation-options: Sources/Binding/KeyPathChange.swift
      user.addTarget(self, for: \.name, options: [.initial, .coalesced]) { me, change in
        me.title = change.newValue  // now, then once per transaction
      }
      // end snippet
    }

    func showName(of user: User) {
      // snippet binding-doc-add-target: Sources/Binding/ObservableModel+Observing.swift,
      // Sources/Binding/ObservableModel+Equatable.swift
      user.addTarget(self, for: \.name) { me, change in me.title = change.newValue }
      // end snippet
    }

    func showTotal(of order: Order) {
      // snippet binding-doc-add-target-on-deletion: Sources/Binding/ObservableModel+Observing.swift
      order.addTarget(self, for: \.total, onDeletion: { me in me.close() }) { me, change in
        me.totalLabel.text = "\(change.newValue)"
      }
      // end snippet
    }

    func callNameChanged(of user: User) {
      // snippet binding-doc-add-target-action: Sources/Binding/ObservableModel+Observing.swift
      user.addTarget(self, action: ProfileView.nameChanged, for: \.name)
      // where: func nameChanged(_ change: KeyPathChange<User, String>)

      user.addTarget(
        self, action: ProfileView.nameChanged, onDeletion: ProfileView.close, for: \.name)
      // end snippet
    }

    func callNameChangedOnce(of user: User) {
      // snippet binding-doc-action-equatable: Sources/Binding/ObservableModel+Equatable.swift
      user.addTarget(self, action: ProfileView.nameChanged, for: \.name)
      // end snippet
    }

    func refreshOnChanges(of user: User) {
      // snippet binding-doc-add-target-refresh: Sources/Binding/ObservableModel+Observing.swift
      user.addTarget(self, action: ProfileView.refresh, for: [\.name, \.address])
      user.addTarget(
        self, action: ProfileView.refresh, onDeletion: ProfileView.close, for: [\.name])
      // end snippet
    }

    func refreshOnNameChanges(of user: User) {
      // snippet binding-doc-add-target-refresh-one: Sources/Binding/ObservableModel+Observing.swift
      user.addTarget(self, action: ProfileView.refresh, for: \.name)
      // end snippet
    }

    func printChangesOfSeveralKeyPaths(of user: User) {
      let print = log
      // snippet binding-doc-add-target-key-paths: Sources/Binding/ObservableModel+Observing.swift
      user.addTarget(self, for: [\.name, \.age]) { me, change in
        print(change.keyPath, change.newValue)
      }
      // end snippet
    }

    func stopShowingName(of user: User) {
      // snippet binding-doc-remove-target-key-path: Sources/Binding/ObservableModel+Observing.swift
      user.removeTarget(self, for: \.name)
      // end snippet
    }

    func stopObserving(_ user: User) {
      // snippet binding-doc-remove-target: Sources/Binding/ObservableModel+Observing.swift
      user.removeTarget(self)
      // end snippet
    }
  }
}

extension DocCommentExamplesTests {
  @Test func keyPathChange() {
    let user = User()
    let view = TargetView()
    view.printNameChanges(of: user)
    user.name = "Ada"
    #expect(view.log.lines == [" → Ada"])
  }

  @Test func initialKind() {
    let user = User()
    user.name = "Ada"
    let view = TargetView()
    view.showNameWithoutAnimation(of: user)
    #expect(!view.animates)
    #expect(view.title == "Ada")
    view.animates = true
    user.name = "Grace"
    #expect(view.animates)  // a change, not the initial delivery
    #expect(view.title == "Grace")
  }

  @Test func partialKeyPathChange() {
    let user = User()
    let view = TargetView()
    view.showNameOfSeveralKeyPaths(of: user)
    user.age = 36
    #expect(view.titles.isEmpty)
    user.name = "Ada"
    #expect(view.titles == ["Ada"])
  }

  @Test func initialAndCoalesced() {
    let user = User()
    user.name = "Ada"
    let view = TargetView()
    view.showNameOncePerTransaction(of: user)
    #expect(view.titles == ["Ada"])  // now
    coalesce {
      user.name = "Grace"
      user.name = "Grace Hopper"
    }
    #expect(view.titles == ["Ada", "Grace Hopper"])  // once for the block
  }

  @Test func addTarget() {
    let user = User()
    let view = TargetView()
    view.showName(of: user)
    user.name = "Ada"
    #expect(view.title == "Ada")
  }

  @Test func addTargetWithOnDeletion() {
    let order = Order()
    let view = TargetView()
    view.showTotal(of: order)
    order.total = 42
    #expect(view.totalLabel.text == "42")
    #expect(view.log.lines.isEmpty)
    order.announceDeletion()
    #expect(view.log.lines == ["close()"])
    #expect(view.totalLabel.text == "42")  // the deletion is not a change
  }

  @Test func addTargetWithAMethod() {
    let user = User()
    let view = TargetView()
    view.callNameChanged(of: user)
    user.name = "Ada"
    #expect(view.log.lines == ["nameChanged  → Ada", "nameChanged  → Ada"])
    user.announceDeletion()
    #expect(view.log.lines == ["nameChanged  → Ada", "nameChanged  → Ada", "close()"])
  }

  @Test func addTargetWithAMethodOfAnEquatableValue() {
    let user = User()
    let view = TargetView()
    view.callNameChangedOnce(of: user)
    user.name = "Ada"
    user.name = "Ada"  // equal: not a change
    #expect(view.log.lines == ["nameChanged  → Ada"])
  }

  @Test func addTargetWithAMethodThatTakesNoArgument() {
    let user = User()
    let view = TargetView()
    view.refreshOnChanges(of: user)
    user.name = "Ada"  // both registrations
    #expect(view.log.lines == ["refresh()", "refresh()"])
    user.address = Address()  // the first one
    #expect(view.log.lines == ["refresh()", "refresh()", "refresh()"])
    user.announceDeletion()
    #expect(view.log.lines == ["refresh()", "refresh()", "refresh()", "close()"])
  }

  @Test func addTargetWithAMethodForOneKeyPath() {
    let user = User()
    let view = TargetView()
    view.refreshOnNameChanges(of: user)
    user.age = 36
    user.name = "Ada"
    #expect(view.log.lines == ["refresh()"])
  }

  @Test func addTargetForSeveralKeyPaths() {
    let user = User()
    let view = TargetView()
    view.printChangesOfSeveralKeyPaths(of: user)
    user.name = "Ada"
    user.age = 36
    #expect(view.log.lines == ["\(\User.name) Ada", "\(\User.age) 36"])
  }

  @Test func removeTargetForAKeyPath() {
    let user = User()
    let view = TargetView()
    view.showName(of: user)
    view.refreshOnNameChanges(of: user)
    view.bind(\.subtitle, to: user, \.name)
    view.stopShowingName(of: user)
    user.name = "Ada"
    #expect(view.titles.isEmpty)
    #expect(view.log.lines.isEmpty)
    #expect(view.subtitle == "Ada")  // not the target's bindings
  }

  @Test func removeTarget() {
    let user = User()
    let view = TargetView()
    view.showName(of: user)
    view.refreshOnChanges(of: user)
    view.bind(\.subtitle, to: user, \.greeting)
    view.stopObserving(user)
    user.name = "Ada"
    user.address = Address()
    #expect(view.titles.isEmpty)
    #expect(view.log.lines.isEmpty)
    #expect(view.subtitle == "Hello, Ada")  // not the target's bindings
  }
}

// MARK: Closures and events

extension DocCommentExamplesTests {
  @Test func observe() {
    let user = User()
    let print = PrintRecorder()
    // snippet binding-doc-observe: Sources/Binding/ObservableModel+Observing.swift
    let token = user.observe(\.address?.city, options: .initial) { change in
      print(change.newValue ?? "no city")
    }
    // end snippet
    let address = Address()
    address.city = "London"
    user.address = address
    address.city = "Paris"
    user.address = nil
    token.cancel()
    #expect(print.lines == ["no city", "London", "Paris", "no city"])
  }

  @Test func observeWithOnDeletion() {
    let order = Order()
    let print = PrintRecorder()
    // snippet binding-doc-observe-on-deletion: Sources/Binding/ObservableModel+Observing.swift
    let token = order.observe(\.total, onDeletion: { print("gone") }) { change in
      print(change.oldValue, "→", change.newValue)
    }
    // end snippet
    order.total = 42
    order.announceDeletion()
    #expect(print.lines == ["0 → 42", "gone"])
    #expect(!token.isActive)
  }

  @Test func observeAnEquatableValue() {
    let user = User()
    let print = PrintRecorder()
    // snippet binding-doc-observe-equatable: Sources/Binding/ObservableModel+Equatable.swift
    let token = user.observe(\.name) { print($0.oldValue, "→", $0.newValue) }
    // end snippet
    user.name = "Ada"
    user.name = "Ada"  // equal: not a change
    token.cancel()
    #expect(print.lines == [" → Ada"])
  }

  @Test func observeEvents() {
    let order = Order()
    let print = PrintRecorder()
    // snippet binding-doc-observe-events: Sources/Binding/ObservableModel+Observing.swift
    let token = order.observeEvents(options: .coalesced) { event in
      switch event {
      case .updated(_, let changes): print("changed:", changes.names)
      case .deleted: print("gone")
      }
    }
    // end snippet
    coalesce {
      order.total = 42
      order.status = .paid
      order.total = 43
    }
    order.announceDeletion()
    #expect(print.lines == [#"changed: ["total", "status"]"#, "gone"])
    #expect(!token.isActive)
  }

  /// `ModelEvent`'s cases, each shown as one case of a switch.
  @Test func modelEventCases() {
    let order = Order()
    let print = PrintRecorder()
    let token = order.observeEvents { event in
      switch event {
      // snippet binding-doc-event-updated: Sources/Binding/KeyPathChange.swift
      case .updated(let order, let changes): print(order.total, changes.names)
      // end snippet
      // snippet binding-doc-event-deleted: Sources/Binding/KeyPathChange.swift
      case .deleted(let object): print("gone:", object)
      // end snippet
      }
    }
    order.total = 42
    order.announceDeletion()
    #expect(print.lines == [#"42 ["total"]"#, "gone: \(order)"])
    #expect(!token.isActive)
  }

  @Test func changedProperties() {
    let order = Order()
    var refreshed: [Int] = []
    func refreshTotal(_ order: Order) { refreshed.append(order.total) }
    let token = order.observeEvents { event in
      switch event {
      // snippet binding-doc-changed-properties: Sources/Binding/KeyPathChange.swift
      case .updated(let order, let changes):
        if changes.contains(\.total) { refreshTotal(order) }
      // end snippet
      case .deleted: break
      }
    }
    order.status = .paid
    order.total = 42
    token.cancel()
    #expect(refreshed == [42])
  }

  /// The examples of `ChangedProperties`' members, in the handler of a coalesced registration.
  @Test func changedPropertiesMembers() {
    let order = Order()
    let print = PrintRecorder()
    func reloadAll() { print("reloadAll()") }
    func refreshTotal(_ order: Order) { print("refreshTotal", order.total) }
    let token = order.observeEvents(options: .coalesced) { event in
      guard case .updated(_, let changes) = event else { return }
      // snippet binding-doc-changed-properties-count: Sources/Binding/KeyPathChange.swift
      if changes.count > 1 { reloadAll() }
      // end snippet
      // snippet binding-doc-changed-properties-names: Sources/Binding/KeyPathChange.swift
      print(changes.names)  // ["status", "total"]
      // end snippet
      // snippet binding-doc-changed-properties-contains: Sources/Binding/KeyPathChange.swift
      if changes.contains(\.total) { refreshTotal(order) }
      // end snippet
    }
    coalesce {
      order.status = .paid
      order.total = 42
    }
    order.status = .new
    token.cancel()
    #expect(
      print.lines == [
        "reloadAll()", #"["status", "total"]"#, "refreshTotal 42",
        #"["status"]"#,
      ])
  }
}

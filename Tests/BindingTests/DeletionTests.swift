import Binding
import TestSupport
import Testing

/// `announceDeletion()` and `isDeleted`.
@Suite struct DeletionTests {}

extension DeletionTests {
  @Test func observersHearTheDeletionThenNothing() {
    let user = User(name: "Ada")
    var heard: [String] = []
    let token = user.observe(\.name, onDeletion: { heard.append("deleted") }) { change in
      heard.append(change.newValue)
    }
    #expect(!user.isDeleted)
    user.announceDeletion()
    #expect(user.isDeleted)
    #expect(heard == ["deleted"])
    #expect(!token.isActive)
    user.name = "Grace"
    #expect(heard == ["deleted"])
  }

  @Test func targetsHearTheDeletion() {
    let user = User()
    let probe = Probe()
    var heard: [String] = []
    user.addTarget(
      probe, for: \.age,
      onDeletion: { target in
        heard.append("deleted \(target === probe)")
      }
    ) { _, change in
      heard.append("\(change.kind) \(change.newValue)")
    }
    user.age = 1
    user.announceDeletion()
    user.age = 2
    #expect(heard == ["change 1", "deleted true"])
  }

  @Test func nestedAndComputedRegistrationsHearTheDeletionOfTheRoot() {
    let user = User()
    user.address = Address(city: "Paris")
    var heard: [String] = []
    let city = user.observe(\.address?.city, onDeletion: { heard.append("city deleted") }) {
      heard.append("city \($0.newValue ?? "nil")")
    }
    let greeting = user.observe(\.greeting, onDeletion: { heard.append("greeting deleted") }) {
      heard.append($0.newValue)
    }
    user.announceDeletion()
    user.address?.city = "Lyon"
    #expect(heard == ["city deleted", "greeting deleted"])
    city.cancel()
    greeting.cancel()
  }

  /// A target registered for several key paths at once hears the deletion once, not once per
  /// key path, with the method or the closure it gave.
  @Test func aTargetOfSeveralKeyPathsHearsTheDeletionOnce() {
    let user = User()
    let probe = Probe()
    var deletions = 0
    user.addTarget(probe, for: [\.name, \.age], onDeletion: { _ in deletions += 1 }) { _, _ in
      Issue.record("a change handler heard the deletion")
    }
    let other = Probe()
    user.addTarget(other, action: Probe.refresh, onDeletion: Probe.close, for: [\.name, \.age])
    user.announceDeletion()
    #expect(deletions == 1)
    #expect(other.refreshCount == 0)
    #expect(other.closeCount == 1)
  }

  @Test func announcingTwiceDeliversOnce() async {
    let user = User()
    await confirmation(expectedCount: 1) { heard in
      let token = user.observe(\.name, onDeletion: { heard() }) { _ in heard() }
      user.announceDeletion()
      user.announceDeletion()
      token.cancel()
    }
  }

  @Test func observeEventsHearsDeleted() throws {
    let user = User()
    var events: [ModelEvent<User>] = []
    let token = user.observeEvents { events.append($0) }
    user.age = 1
    user.announceDeletion()
    user.age = 2
    #expect(events.count == 2)
    guard case .updated = try #require(events.first) else {
      Issue.record("expected .updated first")
      return
    }
    guard case .deleted(let object) = try #require(events.last) else {
      Issue.record("expected .deleted last")
      return
    }
    #expect(object === user)
    #expect(events.last?.object === user)
    #expect(!token.isActive)
  }

  @Test func bindingsFromADeletedSourceEndAndTheReceiverKeepsItsValue() {
    let user = User(name: "Ada")
    let field = TextField()
    field.bind(\.text, to: user, \.name)
    #expect(field.boundKeyPaths == [\TextField.text])
    user.announceDeletion()
    #expect(field.text == "Ada")
    #expect(field.textSets == 1)
    #expect(field.boundKeyPaths.isEmpty)
    user.name = "Grace"
    #expect(field.text == "Ada")
  }

  @Test func registeringOnADeletedObjectDeliversNothing() async {
    let user = User(name: "Ada")
    user.announceDeletion()
    let probe = Probe()
    let field = TextField()
    await confirmation(expectedCount: 0) { heard in
      let token = user.observe(\.name, options: .initial) { _ in heard() }
      #expect(!token.isActive)
      let events = user.observeEvents { _ in heard() }
      #expect(!events.isActive)
      user.addTarget(probe, for: \.name, options: .initial) { _, _ in heard() }
      user.addTarget(probe, for: [\.name, \.age], options: .initial) { _, _ in heard() }
      field.bind(\.text, to: user, \.name)
      user.name = "Grace"
      user.age = 3
    }
    #expect(field.text == "")
    #expect(field.boundKeyPaths.isEmpty)
  }

  @Test func changesSequenceOfADeletedObjectFinishesAtOnce() async {
    let user = User()
    user.announceDeletion()
    var count = 0
    for await _ in user.changes(for: \.name, options: .initial) { count += 1 }
    #expect(count == 0)
  }

  @Test func deletingAnIntermediateDoesNotDeleteTheRoot() {
    let user = User()
    let paris = Address(city: "Paris")
    user.address = paris
    var cities: [String?] = []
    let token = user.observe(\.address?.city) { cities.append($0.newValue) }
    paris.announceDeletion()
    #expect(!user.isDeleted)
    #expect(token.isActive)
    user.address = Address(city: "Rome")
    #expect(cities == ["Rome"])
    token.cancel()
  }
}

extension DeletionTests {
  /// A deletion announced by an observer of a write, before the write reached the later
  /// observers: they hear the write's change, then the deletion with the current value
  /// (issue 13, item 6: the second observer heard `deletion 0 0` while the property was 5, and
  /// never heard 5).
  @Test func aDeletionAnnouncedDuringAWriteStillDeliversThatWrite() {
    let user = User()
    var second: [String] = []
    let deleting = user.observe(\.age) { [unowned user] change in
      if change.newValue == 5 { user.announceDeletion() }
    }
    let hearing = user.observe(\.age, onDeletion: { second.append("deletion") }) { change in
      second.append("change \(change.oldValue) \(change.newValue)")
    }
    user.age = 5
    #expect(second == ["change 0 5", "deletion"])
    deleting.cancel()
    hearing.cancel()
  }

  @Test func aDeletionAndWhatItsObserversWriteIsOneTransactionOutsideABlock() {
    let user = User(name: "a")
    let other = User(name: "x")
    let probe = Probe()
    other.addTarget(probe, for: \.name, options: .coalesced, delivery: .synchronous) { p, c in
      p.log.append("\(c.oldValue)>\(c.newValue)")
    }
    // A store's cascade: the deletion's observer writes another object twice.
    let cascade = user.observe(
      \.name, delivery: .synchronous,
      onDeletion: {
        other.name = "y"
        other.name = "z"
      }
    ) { _ in }
    user.announceDeletion()
    #expect(probe.log == ["x>z"])
    other.name = "w"  // a write of its own, after the deletion's transaction
    #expect(probe.log == ["x>z", "z>w"])
    cascade.cancel()
  }

  @Test func aCoalescedRegistrationHearsADeletionAfterItsPlainObservers() {
    let user = User()
    var order: [String] = []
    let coalesced = user.observeEvents(options: .coalesced, delivery: .synchronous) { event in
      order.append(event.isDeletion ? "coalesced deletion" : "coalesced update")
    }
    let plain = user.observe(
      \.name, delivery: .synchronous, onDeletion: { order.append("plain deletion") }
    ) { _ in order.append("plain change") }
    user.announceDeletion()
    #expect(order == ["plain deletion", "coalesced deletion"])
    #expect(!coalesced.isActive && !plain.isActive)
  }
}

// MARK: - Change handlers never hear a deletion (issue 31, item 4)

extension DeletionTests {
  /// Every form of change handler hears the real change and nothing for the deletion (it used
  /// to hear the deletion as a change with `oldValue == newValue`: `"Two -> Two"`).
  @Test func aChangeHandlerNeverHearsADeletion() {
    let user = User(name: "One")
    let probe = Probe()
    var heard: [String] = []
    let token = user.observe(\.name) { heard.append("observe \($0.oldValue)->\($0.newValue)") }
    user.addTarget(probe, for: \.name) { _, change in
      heard.append("target \(change.oldValue)->\(change.newValue)")
    }
    user.addTarget(probe, for: [\.name]) { _, change in
      heard.append("erased \(change.oldValue)->\(change.newValue)")
    }
    user.addTarget(probe, action: Probe.nameChanged, for: \.name)
    user.name = "Two"
    user.announceDeletion()
    #expect(
      heard == ["observe One->Two", "target One->Two", "erased One->Two"],
      "a deletion reached a change handler")
    #expect(probe.log == ["One>Two"], "a deletion reached a target's method")
    token.cancel()
  }

  /// A method that takes no argument is called for real changes only: not for the deletion,
  /// however many key paths it observes.
  @Test func aNoArgumentActionIsNotCalledOnDeletion() {
    let user = User()
    let probe = Probe()
    user.addTarget(probe, action: Probe.refresh, for: [\.name, \.age])
    user.addTarget(probe, action: Probe.refresh, for: \.nickname)
    user.name = "Ada"
    #expect(probe.refreshCount == 1)
    user.announceDeletion()
    #expect(probe.refreshCount == 1, "the deletion called the action as a change")
  }
}

extension DeletionTests {
  /// The deletion callback belongs to its registration: one that ended before the deletion
  /// (cancelled, removed, or its target deallocated) does not hear it.
  @Test func anEndedRegistrationDoesNotHearTheDeletion() {
    let user = User()
    var heard: [String] = []
    let token = user.observe(\.name, onDeletion: { heard.append("cancelled") }) { _ in }
    token.cancel()
    let removed = Probe()
    user.addTarget(removed, for: \.name, onDeletion: { _ in heard.append("removed") }) { _, _ in }
    user.removeTarget(removed, for: \.name)
    do {
      let dying = Probe()
      user.addTarget(dying, for: [\.name, \.age], onDeletion: { _ in heard.append("dead") }) {
        _, _ in
      }
    }
    let live = Probe()
    user.addTarget(live, for: \.age, onDeletion: { _ in heard.append("live") }) { _, _ in }
    user.announceDeletion()
    #expect(heard == ["live"])
  }

  /// A main-actor target hears a deletion announced on another thread on the main actor, after
  /// the changes made before it, by its closure and by its method.
  @MainActor
  @Test func aMainActorTargetHearsTheDeletionOnTheMainActorAfterTheChanges() async {
    let user = User()
    let controller = ProfileViewController()
    user.addTarget(controller, for: \.name, onDeletion: { $0.close() }) { controller, change in
      controller.record(change.newValue)
    }
    user.addTarget(
      controller, action: ProfileViewController.refresh,
      onDeletion: ProfileViewController.close, for: [\.name, \.age])
    let handoff = Handoff(user)
    await onNewThread {
      handoff.value.name = "last"
      handoff.value.announceDeletion()
    }
    #expect(await eventually { controller.closeCount == 2 })
    #expect(controller.titles == ["last"])
    #expect(controller.refreshCount == 1)
    #expect(controller.allOnMainThread)
  }
}

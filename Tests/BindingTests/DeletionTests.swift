import Binding
import Testing

/// `announceDeletion()` and `isDeleted`.
@Suite struct DeletionTests {}

extension DeletionTests {
  @Test func observersHearADeletionEventThenNothing() throws {
    let user = User(name: "Ada")
    var changes: [KeyPathChange<User, String>] = []
    let token = user.observe(\.name) { changes.append($0) }
    #expect(!user.isDeleted)
    user.announceDeletion()
    #expect(user.isDeleted)
    let deletion = try #require(changes.first)
    #expect(changes.count == 1)
    #expect(deletion.kind == .deletion)
    #expect(deletion.isDeletion)
    #expect(!deletion.isInitial)
    #expect(deletion.object === user)
    #expect(deletion.oldValue == "Ada" && deletion.newValue == "Ada")
    #expect(!token.isActive)
    user.name = "Grace"
    #expect(changes.count == 1)
  }

  @Test func targetsHearTheDeletion() {
    let user = User()
    let probe = Probe()
    var kinds: [KeyPathChange<User, Int>.Kind] = []
    user.addTarget(probe, for: \.age) { _, change in kinds.append(change.kind) }
    user.age = 1
    user.announceDeletion()
    user.age = 2
    #expect(kinds == [.change, .deletion])
  }

  @Test func nestedAndComputedRegistrationsHearTheDeletionOfTheRoot() {
    let user = User()
    user.address = Address(city: "Paris")
    var kinds: [String] = []
    let city = user.observe(\.address?.city) { kinds.append("city \($0.kind)") }
    let greeting = user.observe(\.greeting) { kinds.append("greeting \($0.kind)") }
    user.announceDeletion()
    user.address?.city = "Lyon"
    #expect(kinds == ["city deletion", "greeting deletion"])
    city.cancel()
    greeting.cancel()
  }

  @Test func erasedTargetsHearTheDeletionOfEachKeyPath() {
    let user = User()
    let probe = Probe()
    var changes: [PartialKeyPathChange<User>] = []
    defer { changes = [] }  // the changes hold the user, which holds the handler: a cycle
    user.addTarget(probe, for: [\.name, \.age]) { _, change in changes.append(change) }
    user.announceDeletion()
    #expect(changes.map(\.isDeletion) == [true, true])
  }

  @Test func announcingTwiceDeliversOnce() async {
    let user = User()
    await confirmation(expectedCount: 1) { heard in
      let token = user.observe(\.name) { _ in heard() }
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
    let hearing = user.observe(\.age) { change in
      second.append(
        "\(change.isDeletion ? "deletion" : "change") \(change.oldValue) \(change.newValue)")
    }
    user.age = 5
    #expect(second == ["change 0 5", "deletion 5 5"])
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
    let cascade = user.observe(\.name, delivery: .synchronous) { change in
      guard change.isDeletion else { return }
      other.name = "y"
      other.name = "z"
    }
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
    let plain = user.observe(\.name, delivery: .synchronous) { change in
      order.append(change.isDeletion ? "plain deletion" : "plain change")
    }
    user.announceDeletion()
    #expect(order == ["plain deletion", "coalesced deletion"])
    #expect(!coalesced.isActive && !plain.isActive)
  }
}

import Binding
import Testing

/// `observeEvents`, `ModelEvent` and `ChangedProperties` outside coalescing.
@Suite struct ModelEventTests {}

extension ModelEventTests {
  @Test func oneUpdatePerChangeNamingTheProperty() {
    let user = User()
    var names: [[String]] = []
    let token = user.observeEvents { event in
      if case .updated(_, let changes) = event { names.append(changes.names) }
    }
    user.name = "Ada"
    user.age = 3
    user.address = Address(city: "Paris")
    #expect(names == [["name"], ["age"], ["address"]])
    token.cancel()
  }

  @Test func equalValueWritesCountAsChanges() async {
    let user = User(name: "Ada")
    await confirmation(expectedCount: 2) { heard in
      let token = user.observeEvents { _ in heard() }
      user.name = "Ada"
      user.name = "Ada"
      token.cancel()
    }
  }

  @Test func propertiesNobodyObservedYetAreReported() {
    let user = User()
    var changes: [Bool] = []
    let token = user.observeEvents { event in
      if case .updated(_, let changed) = event { changes.append(changed.contains(\.nickname)) }
    }
    user.nickname = "A"
    user.age = 1
    #expect(changes == [true, false])
    token.cancel()
  }

  @Test func changesOfANestedModelAreNotEventsOfTheRoot() {
    let user = User()
    user.address = Address(city: "Paris")
    var count = 0
    let token = user.observeEvents { _ in count += 1 }
    user.address?.city = "Lyon"
    #expect(count == 0)
    token.cancel()
  }

  @Test func eventObjectIsTheModel() {
    let user = User()
    var objects: [User] = []
    let token = user.observeEvents { objects.append($0.object) }
    user.age = 1
    user.announceDeletion()
    #expect(objects.count == 2)
    #expect(objects.allSatisfy { $0 === user })
    token.cancel()
  }

  @Test func theTypedEventHasTheAccessorsOfATrackersEvent() {
    let user = User()
    var events: [ModelEvent<User>] = []
    let token = user.observeEvents { events.append($0) }
    user.age = 1
    user.announceDeletion()
    #expect(events.count == 2)
    #expect(events.map(\.isDeletion) == [false, true])
    #expect(events.first?.changes?.names == ["age"])
    #expect(events.last?.changes == nil)
    #expect(events.first?.object(as: User.self) === user)
    #expect(events.first?.object(as: Address.self) == nil)
    token.cancel()
  }

  @Test func aKeyPathNamingTheTypeOrAnotherTypeIsAnsweredToo() {
    let user = User()
    var answers: [Bool] = []
    let token = user.observeEvents { event in
      guard let changes = event.changes else { return }
      answers += [changes.contains(\User.age), changes.contains(\Address.city)]
    }
    user.age = 1
    #expect(answers == [true, false])
    token.cancel()
  }
}

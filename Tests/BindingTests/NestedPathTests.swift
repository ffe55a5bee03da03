import Binding
import TestSupport
import Testing

/// Paths through other models (`\.address?.city`) and computed properties.
@Suite struct NestedPathTests {}

extension NestedPathTests {
  @Test func reattachesWhenTheIntermediateIsReplaced() {
    let user = User()
    var cities: [String?] = []
    let token = user.observe(\.address?.city) { cities.append($0.newValue) }
    let paris = Address(city: "Paris")
    user.address = paris
    paris.city = "Lyon"
    let rome = Address(city: "Rome")
    user.address = rome
    rome.city = "Milan"
    #expect(cities == ["Paris", "Lyon", "Rome", "Milan"])
    token.cancel()
  }

  @Test func detachesFromTheOldIntermediate() {
    let user = User()
    var changes: [KeyPathChange<User, String?>] = []
    defer { changes = [] }  // the changes hold the user, which holds the handler: a cycle
    // `.everySet` makes any write the registration still listened to visible.
    let token = user.observe(\.address?.city, options: .everySet) { changes.append($0) }
    let old = Address(city: "Paris")
    user.address = old
    user.address = Address(city: "Rome")
    #expect(changes.count == 2)
    old.city = "Nice"
    old.city = "Nice"
    old.street = "Rue de France"
    #expect(changes.count == 2)
    user.address?.city = "Milan"
    #expect(changes.count == 3)
    #expect(changes.last?.oldValue == "Rome")
    #expect(changes.last?.newValue == "Milan")
    token.cancel()
  }

  @Test func theOldIntermediateIsNotKeptAlive() {
    withLifetimeTracking { tracker in
      let user = User()
      let token = user.observe(\.address?.city) { _ in }
      weak var old: Address?
      do {
        let first = Address(city: "Paris", tracker: tracker)
        old = first
        user.address = first
      }
      user.address = Address(city: "Rome", tracker: tracker)
      #expect(old == nil)
      user.address = nil
      #expect(tracker.live == 0)
      token.cancel()
    }
  }

  @Test func nilIntermediate() {
    let user = User()
    var changes: [KeyPathChange<User, String?>] = []
    defer { changes = [] }  // the changes hold the user, which holds the handler: a cycle
    let token = user.observe(\.address?.city, options: .initial) { changes.append($0) }
    user.address = Address(city: "Paris")
    let paris = user.address
    user.address = nil
    paris?.city = "Lyon"  // detached: no delivery
    user.address = Address(city: "Oslo")
    user.address?.city = "Bergen"
    #expect(changes.map(\.newValue) == [nil, "Paris", nil, "Oslo", "Bergen"])
    #expect(changes.map(\.oldValue) == [nil, nil, "Paris", nil, "Oslo"])
    #expect(changes.first?.isInitial == true)
    token.cancel()
  }

  @Test func replacingTheIntermediateWithAnEqualValueDeliversNothing() {
    let user = User()
    user.address = Address(city: "Paris")
    var count = 0
    let token = user.observe(\.address?.city) { _ in count += 1 }
    user.address = Address(city: "Paris")
    #expect(count == 0)
    user.address?.city = "Lyon"
    #expect(count == 1)
    token.cancel()
  }

  @Test func computedPropertyIsObservableThroughWhatItReads() {
    let user = User(name: "Ada")
    var greetings: [String] = []
    let token = user.observe(\.greeting, options: .initial) { greetings.append($0.newValue) }
    user.name = "Grace"
    user.age = 3  // not read by `greeting`
    #expect(greetings == ["Hello, Ada", "Hello, Grace"])
    token.cancel()
  }

  @Test func computedPropertyThroughANestedModel() {
    let user = User()
    var labels: [String] = []
    let token = user.observe(\.cityLabel) { labels.append($0.newValue) }
    user.address = Address(city: "Paris")
    user.address?.city = "Lyon"
    user.address = nil
    #expect(labels == ["Paris", "Lyon", "nowhere"])
    token.cancel()
  }

  @Test func conditionalComputedPropertyIsRetracked() {
    let user = User(name: "Ada")
    user.nickname = "A"
    var names: [String] = []
    let token = user.observe(\.displayName) { names.append($0.newValue) }
    user.nickname = "AL"  // not read yet
    #expect(names.isEmpty)
    user.useNickname = true  // now reads `nickname`
    #expect(names == ["AL"])
    user.nickname = "Lady A"  // followed after re-tracking
    #expect(names == ["AL", "Lady A"])
    user.name = "Ada Lovelace"  // no longer changes the value
    #expect(names == ["AL", "Lady A"])
    user.useNickname = false
    user.name = "Countess"
    #expect(names == ["AL", "Lady A", "Ada Lovelace", "Countess"])
    token.cancel()
  }

  @Test func conditionalComputedPropertyStopsListeningToWhatItNoLongerReads() {
    let user = User(name: "Ada")
    var count = 0
    let token = user.observe(\.displayName, options: .everySet) { _ in count += 1 }
    user.useNickname = true
    #expect(count == 1)
    user.name = "Grace"  // no longer read
    #expect(count == 1)
    user.nickname = "G"
    #expect(count == 2)
    token.cancel()
  }

  @Test func nestedTargetsHearTheRootAsObject() throws {
    let user = User()
    let probe = Probe()
    var objects: [User] = []
    defer { objects = [] }  // they are the user, which holds the handler: a cycle
    user.addTarget(probe, for: \.address?.city) { _, change in objects.append(change.object) }
    user.address = Address(city: "Paris")
    user.address?.city = "Lyon"
    #expect(objects.count == 2)
    #expect(objects.allSatisfy { $0 === user })
  }

  @Test func rootDeallocatedWhileTheIntermediateLivesOn() {
    let paris = Address(city: "Paris")
    var count = 0
    var token: ObservationToken?
    do {
      let user = User()
      user.address = paris
      token = user.observe(\.address?.city) { _ in count += 1 }
      paris.city = "Lyon"
      #expect(count == 1)
    }
    #expect(token?.isActive == false)
    paris.city = "Nice"
    #expect(count == 1)
  }
}

extension NestedPathTests {
  /// Replacing the intermediate again and again, each old one freed at once (so new objects and
  /// slots may reuse their memory), the path follows the current intermediate and hears each
  /// change once: a re-evaluation compares what it read with the last reads by address only.
  @Test func followsIntermediatesWhoseMemoryIsReused() {
    let user = User()
    var cities: [String?] = []
    let token = user.observe(\.address?.city) { cities.append($0.newValue) }
    var expected: [String?] = []
    for round in 0..<300 {
      user.address = Address(city: "c\(round)")  // the previous one is freed here
      user.address?.city = "d\(round)"
      user.address?.street = "s\(round)"  // not read: not heard
      expected += ["c\(round)", "d\(round)"]
    }
    #expect(cities == expected)
    token.cancel()
  }
}

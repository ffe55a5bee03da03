import Binding
import Foundation
import TestSupport
import Testing

/// `coalesce { }` and `.coalesced` registrations.
@Suite struct CoalescingTests {}

private struct Failure: Error {}

extension CoalescingTests {
  @Test func optedInRegistrationHearsOnceWithFirstOldAndLastNew() throws {
    let user = User(name: "Charles")
    var changes: [KeyPathChange<User, String>] = []
    defer { changes = [] }  // the changes hold the user, which holds the handler: a cycle
    let token = user.observe(\.name, options: .coalesced) { changes.append($0) }
    coalesce {
      user.name = "Ada"
      user.name = "Ada Lovelace"
      #expect(changes.isEmpty)
    }
    #expect(changes.count == 1)
    let change = try #require(changes.first)
    #expect(change.oldValue == "Charles")
    #expect(change.newValue == "Ada Lovelace")
    #expect(change.kind == .change)
    #expect(change.object === user)
    token.cancel()
  }

  @Test func registrationsWithoutTheOptionHearEachChangeAtOnce() {
    let user = User()
    var immediate: [String] = []
    let token = user.observe(\.name) { immediate.append($0.newValue) }
    coalesce {
      user.name = "a"
      #expect(immediate == ["a"])
      user.name = "b"
      #expect(immediate == ["a", "b"])
    }
    #expect(immediate == ["a", "b"])
    token.cancel()
  }

  @Test func bindingsAreNeverDeferred() {
    let user = User()
    let field = TextField()
    field.bind(\.text, to: user, \.name)
    coalesce {
      user.name = "Ada"
      #expect(field.text == "Ada")
      user.name = "Grace"
      #expect(field.text == "Grace")
    }
    #expect(field.textSets == 2)
  }

  @Test func deliveriesFollowTheOrderOfFirstChange() {
    let user = User()
    let probe = Probe()
    user.addTarget(probe, action: Probe.nameChanged, for: \.name, options: .coalesced)
    user.addTarget(probe, action: Probe.ageChanged, for: \.age, options: .coalesced)
    coalesce {
      user.age = 1
      user.name = "Ada"
      user.age = 2
    }
    #expect(probe.log == ["age:0>2", ">Ada"])
  }

  @Test func onlyTheOutermostBlockDelivers() {
    let user = User()
    var values: [Int] = []
    let token = user.observe(\.age, options: .coalesced) { values.append($0.newValue) }
    coalesce {
      user.age = 1
      coalesce {
        user.age = 2
        coalesce { user.age = 3 }
        #expect(values.isEmpty)
      }
      #expect(values.isEmpty)
      user.age = 4
    }
    #expect(values == [4])
    token.cancel()
  }

  @Test func coalesceReturnsTheBodysResult() {
    let user = User()
    let result = coalesce { () -> Int in
      user.age = 5
      return user.age * 2
    }
    #expect(result == 10)
  }

  @Test func valueChangedBackIsNotDeliveredUnlessEverySet() {
    let user = User(name: "Ada")
    var plain: [String] = []
    var every: [String] = []
    let first = user.observe(\.name, options: .coalesced) { plain.append($0.newValue) }
    let second = user.observe(\.name, options: [.coalesced, .everySet]) {
      every.append("\($0.oldValue)>\($0.newValue)")
    }
    coalesce {
      user.name = "Grace"
      user.name = "Ada"
    }
    #expect(plain.isEmpty)
    #expect(every == ["Ada>Ada"])
    first.cancel()
    second.cancel()
  }

  @Test func aThrowingBlockDeliversWhatChangedAndRethrows() {
    let user = User()
    var values: [String] = []
    let token = user.observe(\.name, options: .coalesced) { values.append($0.newValue) }
    #expect(throws: Failure.self) {
      try coalesce {
        user.name = "a"
        user.name = "b"
        throw Failure()
      }
    }
    #expect(values == ["b"])
    user.name = "c"  // the block ended: delivered at once
    #expect(values == ["b", "c"])
    token.cancel()
  }

  @Test func changesMadeByCallbacksDuringTheFlushAreDeliveredInFurtherRounds() {
    let user = User()
    var heard: [String] = []
    let probe = Probe()
    user.addTarget(probe, for: \.name, options: .coalesced) { _, change in
      heard.append("name \(change.newValue)")
      change.object.age += 1
    }
    user.addTarget(probe, for: \.age, options: .coalesced) { _, change in
      heard.append("age \(change.newValue)")
    }
    let immediate = user.observe(\.age) { heard.append("immediate age \($0.newValue)") }
    coalesce { user.name = "Ada" }
    #expect(heard == ["name Ada", "immediate age 1", "age 1"])
    immediate.cancel()
  }

  @Test func aChainShorterThanTheLimitSettlesAndLosesNothing() {
    #expect(maximumCoalescingRounds == 100)
    let user = User()
    let probe = Probe()
    var deliveries: [Int] = []
    let rounds = maximumCoalescingRounds / 2
    user.addTarget(probe, for: \.age, options: .coalesced) { _, change in
      deliveries.append(change.newValue)
      if change.newValue < rounds { change.object.age += 1 }
    }
    coalesce { user.age = 1 }
    #expect(deliveries == Array(1...rounds))
    #expect(user.age == rounds)
  }

  @Test func coalescingIsPerThread() {
    let user = User()
    let other = User()
    var mine: [String] = []
    var theirs: [String] = []
    let first = user.observe(\.name, options: .coalesced) { mine.append($0.newValue) }
    let second = other.observe(\.name, options: .coalesced) { theirs.append($0.newValue) }
    let handoff = Handoff(other)
    let done = DispatchSemaphore(value: 0)
    coalesce {
      user.name = "here"
      Thread {
        handoff.value.name = "there"
        done.signal()
      }.start()
      done.wait()
      // The other thread's change was not part of this block: already delivered.
      #expect(theirs == ["there"])
      #expect(mine.isEmpty)
    }
    #expect(mine == ["here"])
    first.cancel()
    second.cancel()
  }
}

// MARK: - Whole-object events

extension CoalescingTests {
  @Test func observeEventsHearsOneUpdatePerObjectPerBlock() throws {
    let user = User()
    var events: [ModelEvent<User>] = []
    defer { events = [] }  // the events hold the user, which holds the handler: a cycle
    let token = user.observeEvents(options: .coalesced) { events.append($0) }
    coalesce {
      user.name = "Ada"
      user.age = 36
      user.name = "Ada Lovelace"
      #expect(events.isEmpty)
    }
    #expect(events.count == 1)
    guard case .updated(let object, let changes) = try #require(events.first) else {
      Issue.record("expected .updated")
      return
    }
    #expect(object === user)
    #expect(changes.count == 2)
    #expect(changes.names == ["name", "age"])
    #expect(changes.contains(\.name))
    #expect(changes.contains(\.age))
    #expect(!changes.contains(\.nickname))
    #expect(!changes.contains(\.address?.city))
    #expect(changes.contains(\.greeting))  // computed: reads `name`
    token.cancel()
  }

  @Test func observeEventsOfSeveralObjectsInOneBlock() {
    let ada = User()
    let grace = User()
    let idle = User()
    var updated: [ObjectIdentifier] = []
    var tokens: [ObservationToken] = []
    for user in [ada, grace, idle] {
      user.observeEvents(options: .coalesced) { updated.append(ObjectIdentifier($0.object)) }
        .store(in: &tokens)
    }
    coalesce {
      grace.age = 1
      ada.age = 1
      grace.name = "Grace"
      ada.age = 2
    }
    #expect(updated == [ObjectIdentifier(grace), ObjectIdentifier(ada)])
  }
}

// MARK: - One write is one transaction

extension CoalescingTests {
  @Test func aWriteAndWhatItsObserversWriteIsOneTransactionOutsideABlock() {
    let user = User(name: "a")
    let probe = Probe()
    // A plain observer that writes another property while the first write is delivered.
    let token = user.observe(\.name, delivery: .synchronous) { change in
      change.object.age += 1
    }
    var heard: [String] = []
    let events = user.observeEvents(options: .coalesced, delivery: .synchronous) { event in
      if case .updated(_, let changes) = event {
        heard.append(changes.names.joined(separator: ","))
      }
    }
    user.addTarget(probe, for: \.name, options: .coalesced, delivery: .synchronous) { probe, c in
      probe.log.append("\(c.oldValue)>\(c.newValue)")
    }
    user.name = "b"
    #expect(heard == ["name,age"])
    #expect(probe.log == ["a>b"])
    user.age = 10
    #expect(heard == ["name,age", "age"])
    token.cancel()
    events.cancel()
  }

  @Test func aCoalescedTargetHearsAfterThePlainObserversOfTheSameWrite() {
    let user = User()
    var order: [String] = []
    let probe = Probe()
    user.addTarget(probe, for: \.name, options: .coalesced, delivery: .synchronous) { _, _ in
      order.append("coalesced")
    }
    let token = user.observe(\.name, delivery: .synchronous) { _ in order.append("plain") }
    user.name = "x"
    #expect(order == ["plain", "coalesced"])
    token.cancel()
  }
}

// MARK: - A deinit that writes while a scope flushes

/// A model whose deinit writes another model's observed property.
private final class WritesWhenReleased: ObservableModel {
  let observation = ObservationStorage()
  @Observed var value = 0
  @Observed var address: Address
  let other: User

  init(other: User, address: Address = Address(city: "x")) {
    self.other = other
    self.address = address
  }

  deinit { other.age += 1 }
}

/// Where the write that a released model's deinit makes happens.
enum DeinitWriteContext: CaseIterable, Sendable {
  /// While a `coalesce` block's transaction is delivered.
  case coalesceBlock
  /// While a write's own transaction is delivered (its scope, which the thread keeps).
  case write
  /// The same, the write being to a nested object, so that only the delivered item holds the
  /// model.
  case nestedWrite
}

extension CoalescingTests {
  /// A coalesced handler drops the last reference to the model it hears, so the model is
  /// released when the flush releases the item it delivered (which held it), and its deinit
  /// writes `other` right then. That write must be heard, and so must every later one: the
  /// deinit once ran inside the flush's access to its list (a "simultaneous accesses" trap while
  /// the list had run-time exclusivity checks; without them, the write's delivery was lost, and
  /// in a write's scope, which its thread keeps, `other`'s registration never heard again).
  @Test(arguments: DeinitWriteContext.allCases)
  func aDeinitThatWritesWhileAScopeFlushesIsHeard(_ context: DeinitWriteContext) {
    let other = User()
    var heard: [Int] = []
    let hearing = other.observe(\.age, options: .coalesced) { heard.append($0.newValue) }
    let address = Address(city: "x")
    var model: WritesWhenReleased? = WritesWhenReleased(other: other, address: address)
    // Non-nil: just assigned.
    let dropping =
      context == .nestedWrite
      ? model!.observe(\.address.city, options: .coalesced) { _ in model = nil }
      : model!.observe(\.value, options: .coalesced) { _ in model = nil }
    switch context {
    case .coalesceBlock: coalesce { model?.value = 1 }
    case .write: model?.value = 1
    case .nestedWrite: address.city = "y"
    }
    #expect(model == nil)
    #expect(other.age == 1)
    #expect(heard == [1])
    other.age = 5
    coalesce { other.age = 6 }
    #expect(heard == [1, 5, 6])
    hearing.cancel()
    dropping.cancel()
  }
}

extension CoalescingTests {
  /// The class of input behind `aDeinitThatWritesWhileAScopeFlushesIsHeard`, generated: models
  /// whose deinits write other models, released by coalesced handlers (so during a flush), by
  /// the test between writes, or not at all; writes in and out of `coalesce` blocks, nested
  /// ones included. After every step, each watched user's coalesced registration has heard its
  /// current age (once it changed), so no write was lost and no registration went deaf.
  @Test(arguments: 0..<6)
  func deinitsThatWriteDuringDeliveriesAreAlwaysHeard(seed: Int) {
    var rng = SplitMix64(seed: UInt64(seed) &* 0x2545_F491 &+ 7)
    let users = (0..<3).map { _ in User() }
    var heard: [Int?] = [nil, nil, nil]
    let hearing = users.indices.map { index in
      users[index].observe(\.age, options: .coalesced) { heard[index] = $0.newValue }
    }
    // The models alive, by number; a handler or the test drops them from here.
    var alive: [Int: WritesWhenReleased] = [:]
    var dropping: [ObservationToken] = []
    var next = 0
    func write(_ rng: inout SplitMix64) {
      switch Int.random(in: 0..<4, using: &rng) {
      case 0:
        // A model that drops itself when its value is heard.
        let number = next
        next += 1
        let model = WritesWhenReleased(other: users[Int.random(in: 0..<3, using: &rng)])
        alive[number] = model
        dropping.append(
          model.observe(\.value, options: .coalesced) { _ in alive[number] = nil })
      case 1:
        if let number = alive.keys.randomElement(using: &rng) { alive[number]?.value += 1 }
      case 2:
        // Dropped by the test (its deinit writes now, inside any open block).
        if let number = alive.keys.randomElement(using: &rng) { alive[number] = nil }
      default:
        users[Int.random(in: 0..<3, using: &rng)].age += 1
      }
    }
    for step in 0..<600 {
      switch Int.random(in: 0..<3, using: &rng) {
      case 0:
        write(&rng)
      case 1:
        coalesce {
          for _ in 0..<Int.random(in: 1...4, using: &rng) { write(&rng) }
        }
      default:
        coalesce {
          write(&rng)
          coalesce { write(&rng) }
          write(&rng)
        }
      }
      for index in users.indices where users[index].age != 0 {
        #expect(heard[index] == users[index].age, "seed \(seed), step \(step), user \(index)")
      }
    }
    #expect(users.map(\.age).reduce(0, +) > 0)
    for token in hearing + dropping { token.cancel() }
    alive.removeAll()
  }
}

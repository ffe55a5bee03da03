import Binding
import Testing

/// `addTarget` (closure, method-reference and multi-key-path forms) and `removeTarget`.
@Suite struct TargetTests {}

// MARK: - Values and the typed change

extension TargetTests {
  @Test func deliversOldAndNewValuesOfEachChange() {
    let user = User()
    let probe = Probe()
    user.addTarget(probe, for: \.name) { probe, change in
      probe.log.append("\(change.oldValue)>\(change.newValue)")
    }
    user.name = "a"
    #expect(probe.log == [">a"])
    user.name = "b"
    #expect(probe.log == [">a", "a>b"])
  }

  @Test func changeCarriesObjectKeyPathAndKind() throws {
    let user = User()
    let probe = Probe()
    var changes: [KeyPathChange<User, Int>] = []
    defer { changes = [] }  // the changes hold the user, which holds the handler: a cycle
    user.addTarget(probe, for: \.age) { _, change in changes.append(change) }
    user.age = 3
    #expect(changes.count == 1)
    let change = try #require(changes.first)
    #expect(change.object === user)
    #expect(change.keyPath == \User.age)
    #expect(change.kind == .change)
    #expect(!change.isInitial)
    #expect(change.oldValue == 0)
    #expect(change.newValue == 3)
  }

  @Test func initialDeliversCurrentValueAsBothOldAndNew() throws {
    let user = User(name: "Ada")
    let probe = Probe()
    var changes: [KeyPathChange<User, String>] = []
    defer { changes = [] }  // the changes hold the user, which holds the handler: a cycle
    user.addTarget(probe, for: \.name, options: .initial) { _, change in changes.append(change) }
    #expect(changes.count == 1)
    let initial = try #require(changes.first)
    #expect(initial.isInitial)
    #expect(initial.kind == .initial)
    #expect(initial.oldValue == "Ada")
    #expect(initial.newValue == "Ada")
    #expect(initial.object === user)
    user.name = "Grace"
    #expect(changes.count == 2)
    #expect(changes.last?.kind == .change)
    #expect(changes.last?.oldValue == "Ada")
  }

  @Test func withoutInitialNothingIsDeliveredAtRegistration() {
    let user = User(name: "Ada")
    let probe = Probe()
    user.addTarget(probe, for: \.name) { probe, _ in probe.refreshCount += 1 }
    #expect(probe.refreshCount == 0)
  }

  @Test(arguments: [
    (ObservationOptions(), [">a"]),
    (ObservationOptions.everySet, [">a", "a>a", "a>a"]),
  ])
  func equalValueSetsOfEquatableValues(options: ObservationOptions, expected: [String]) {
    let user = User()
    let probe = Probe()
    user.addTarget(probe, for: \.name, options: options) { probe, change in
      probe.log.append("\(change.oldValue)>\(change.newValue)")
    }
    user.name = "a"
    user.name = "a"
    user.name = "a"
    #expect(probe.log == expected)
  }

  @Test func nonEquatableValuesAreDeliveredOnEverySet() {
    let user = User()
    let probe = Probe()
    var numbers: [Int] = []
    user.addTarget(probe, for: \.blob) { _, change in numbers.append(change.newValue.number) }
    user.blob = Blob(number: 1)
    user.blob = Blob(number: 1)
    user.blob = Blob(number: 1)
    #expect(numbers == [1, 1, 1])
  }

  @Test func computedValueUnchangedByAWriteIsNotDelivered() {
    let user = User(name: "Ada")
    let probe = Probe()
    user.addTarget(probe, for: \.displayName) { probe, _ in probe.refreshCount += 1 }
    user.nickname = "A"  // not read while `useNickname` is false
    user.name = "Ada"  // equal
    #expect(probe.refreshCount == 0)
  }
}

// MARK: - Method-reference and multi-key-path forms

extension TargetTests {
  @Test func methodReferenceForm() {
    let user = User()
    let probe = Probe()
    user.addTarget(probe, action: Probe.nameChanged, for: \.name)
    user.name = "Ada"
    user.name = "Ada Lovelace"
    #expect(probe.log == [">Ada", "Ada>Ada Lovelace"])
  }

  @Test func methodReferenceFormWithInitial() {
    let user = User()
    user.age = 5
    let probe = Probe()
    user.addTarget(probe, action: Probe.ageChanged, for: \.age, options: .initial)
    #expect(probe.log == ["age:5>5"])
  }

  @Test func noArgumentMethodForSeveralKeyPaths() {
    let user = User()
    let probe = Probe()
    user.addTarget(probe, action: Probe.refresh, for: [\.name, \.age, \.address?.city])
    #expect(probe.refreshCount == 0)
    user.name = "Ada"
    #expect(probe.refreshCount == 1)
    user.age = 36
    #expect(probe.refreshCount == 2)
    user.address = Address(city: "London")
    #expect(probe.refreshCount == 3)
    user.plain = 1
    #expect(probe.refreshCount == 3)
  }

  /// One key path needs no array (`for: \.name`, not `for: [\.name]`).
  @Test func noArgumentMethodForOneKeyPath() {
    let user = User()
    let probe = Probe()
    user.addTarget(probe, action: Probe.refresh, for: \.name)
    user.addTarget(probe, action: Probe.refresh, for: \.address?.city, options: .initial)
    #expect(probe.refreshCount == 1)
    user.name = "Ada"
    #expect(probe.refreshCount == 2)
    user.age = 36
    user.address = Address(city: "London")
    #expect(probe.refreshCount == 3)
    user.removeTarget(probe, for: \.name)
    user.name = "Grace"
    #expect(probe.refreshCount == 3)
  }

  @Test func noArgumentMethodWithInitialIsCalledOnceNotOncePerKeyPath() {
    let user = User()
    let probe = Probe()
    user.addTarget(
      probe, action: Probe.refresh, for: [\.name, \.age, \.nickname], options: .initial)
    #expect(probe.refreshCount == 1)
    user.age = 1
    #expect(probe.refreshCount == 2)
  }

  @Test func severalKeyPathsWithErasedChanges() {
    let user = User()
    let probe = Probe()
    var changes: [PartialKeyPathChange<User>] = []
    defer { changes = [] }  // the changes hold the user, which holds the handler: a cycle
    user.addTarget(probe, for: [\.name, \.age]) { _, change in changes.append(change) }
    user.name = "Ada"
    user.age = 36
    #expect(changes.count == 2)
    #expect(changes.map(\.keyPath) == [\User.name, \User.age])
    #expect(changes.first?.newValue as? String == "Ada")
    #expect(changes.first?.oldValue as? String == "")
    #expect(changes.last?.newValue as? Int == 36)
    let allChanges = changes.allSatisfy { $0.object === user && $0.kind == .change }
    #expect(allChanges)
  }

  @Test func severalKeyPathsWithErasedChangesAndInitialDeliverEachOnce() {
    let user = User(name: "Ada")
    let probe = Probe()
    var changes: [PartialKeyPathChange<User>] = []
    defer { changes = [] }  // the changes hold the user, which holds the handler: a cycle
    user.addTarget(probe, for: [\.name, \.age], options: .initial) { _, change in
      changes.append(change)
    }
    #expect(changes.count == 2)
    #expect(changes.map(\.isInitial) == [true, true])
    #expect(changes.first?.newValue as? String == "Ada")
  }
}

// MARK: - Removal

extension TargetTests {
  @Test func removeTargetForOneKeyPathKeepsTheOthers() {
    let user = User()
    let probe = Probe()
    user.addTarget(probe, action: Probe.nameChanged, for: \.name)
    user.addTarget(probe, action: Probe.ageChanged, for: \.age)
    user.removeTarget(probe, for: \.name)
    user.name = "Ada"
    user.age = 1
    #expect(probe.log == ["age:0>1"])
    user.removeTarget(probe, for: \.name)  // idempotent
    user.age = 2
    #expect(probe.log == ["age:0>1", "age:1>2"])
  }

  @Test func removeTargetForOneKeyPathRemovesEveryRegistrationOfIt() {
    let user = User()
    let probe = Probe()
    user.addTarget(probe, action: Probe.nameChanged, for: \.name)
    user.addTarget(probe, for: \.name) { probe, _ in probe.refreshCount += 1 }
    user.removeTarget(probe, for: \.name)
    user.name = "Ada"
    #expect(probe.log.isEmpty)
    #expect(probe.refreshCount == 0)
  }

  @Test func removeTargetForAllKeyPaths() {
    let user = User()
    let probe = Probe()
    user.addTarget(probe, action: Probe.nameChanged, for: \.name)
    user.addTarget(probe, action: Probe.ageChanged, for: \.age)
    user.addTarget(probe, action: Probe.refresh, for: [\.nickname, \.address])
    user.removeTarget(probe)
    user.name = "Ada"
    user.age = 1
    user.nickname = "A"
    #expect(probe.log.isEmpty)
    #expect(probe.refreshCount == 0)
    user.removeTarget(probe)  // idempotent
    user.name = "Grace"
    #expect(probe.log.isEmpty)
  }

  @Test func removeTargetLeavesOtherTargetsAlone() {
    let user = User()
    let removed = Probe()
    let kept = Probe()
    user.addTarget(removed, action: Probe.nameChanged, for: \.name)
    user.addTarget(kept, action: Probe.nameChanged, for: \.name)
    user.removeTarget(removed)
    user.name = "Ada"
    #expect(removed.log.isEmpty)
    #expect(kept.log == [">Ada"])
  }

  @Test func removeTargetOnAnUnobservedObjectDoesNothing() {
    let user = User()
    let probe = Probe()
    user.removeTarget(probe)
    user.removeTarget(probe, for: \.name)
    user.addTarget(probe, action: Probe.nameChanged, for: \.name)
    user.name = "Ada"
    #expect(probe.log == [">Ada"])
  }

  @Test func removeTargetForANestedKeyPath() {
    let user = User()
    let probe = Probe()
    user.addTarget(probe, for: \.address?.city) { probe, _ in probe.refreshCount += 1 }
    user.address = Address(city: "Paris")
    #expect(probe.refreshCount == 1)
    user.removeTarget(probe, for: \.address?.city)
    user.address?.city = "Rome"
    user.address = Address(city: "Oslo")
    #expect(probe.refreshCount == 1)
  }
}

// MARK: - Ordering

extension TargetTests {
  @Test(arguments: [2, 3, 10])
  func targetsHearInRegistrationOrder(count: Int) {
    let user = User()
    var heard: [Int] = []
    let probes = (0..<count).map { _ in Probe() }
    for (index, probe) in probes.enumerated() {
      user.addTarget(probe, for: \.name) { _, _ in heard.append(index) }
    }
    // Targets are held weakly: keep them alive past their last use (release builds end
    // lifetimes early).
    withExtendedLifetime(probes) {
      user.name = "Ada"
      #expect(heard == Array(0..<count))
      user.name = "Grace"
      #expect(heard == Array(0..<count) + Array(0..<count))
    }
  }

  @Test func tokensAndTargetsShareOneOrder() {
    let user = User()
    var heard: [String] = []
    let probe = Probe()
    let first = user.observe(\.name) { _ in heard.append("token 1") }
    user.addTarget(probe, for: \.name) { _, _ in heard.append("target") }
    let second = user.observe(\.name) { _ in heard.append("token 2") }
    user.name = "Ada"
    #expect(heard == ["token 1", "target", "token 2"])
    first.cancel()
    second.cancel()
  }

  @Test func aModelMayInheritFromAnyClass() {
    let note = Note()
    var texts: [String] = []
    let token = note.observe(\.text) { texts.append($0.newValue) }
    note.text = "hi"
    #expect(texts == ["hi"])
    #expect(note.identifier == 7)
    token.cancel()
  }
}

// MARK: - In-place mutation

extension TargetTests {
  @Test func inPlaceMutationsAreObservedWithTheirOldValue() {
    let user = User()
    var changes: [String] = []
    let token = user.observe(\.age) { changes.append("\($0.oldValue)>\($0.newValue)") }
    user.age += 1
    user.age += 1
    #expect(changes == ["0>1", "1>2"])
    token.cancel()
  }

  @Test func anInPlaceAppendIsObservedAndTheOldValueKept() {
    let model = Tagged()
    var heard: [[String]] = []
    let token = model.observe(\.tags) { heard.append($0.oldValue + ["→"] + $0.newValue) }
    model.tags.append("a")
    model.tags.append("b")
    #expect(heard == [["→", "a"], ["a", "→", "a", "b"]])
    #expect(model.tags == ["a", "b"])
    token.cancel()
  }

  @Test func anInPlaceAppendWithNobodyObservingMutatesInPlace() {
    let model = Tagged()
    model.tags.reserveCapacity(16)
    model.tags.append("a")
    let before = model.tags.withUnsafeBufferPointer { $0.baseAddress }
    model.tags.append("b")
    let after = model.tags.withUnsafeBufferPointer { $0.baseAddress }
    #expect(before == after, "the append copied the buffer")
  }
}

final class Tagged: ObservableModel {
  let observation = ObservationStorage()
  @Observed var tags: [String] = []
}

import Binding
import TestSupport
import Testing

/// `BindingReceiver`: `bind`, `unbind`, `unbindAll`, `boundKeyPaths`, two-way bindings.
@Suite struct BindingReceiverTests {}

/// Any class becomes a receiver with one line.
private final class Thermometer {
  var reading = 0
}

extension Thermometer: BindingReceiver {}

extension BindingReceiverTests {
  @Test func anyPlainClassIsAReceiverWithOneLine() {
    let user = User()
    let thermometer = Thermometer()
    thermometer.bind(\.reading, to: user, \.age)
    user.age = 21
    #expect(thermometer.reading == 21)
  }

  @Test func setsAtOnceThenOnEveryChange() {
    let user = User(name: "Ada")
    let field = TextField()
    field.bind(\.text, to: user, \.name)
    #expect(field.text == "Ada")
    #expect(field.textSets == 1)
    user.name = "Grace"
    #expect(field.text == "Grace")
    #expect(field.textSets == 2)
  }

  @Test func setsOnlyWhenTheValueDiffers() {
    let user = User()
    let field = TextField()
    field.bind(\.text, to: user, \.name)
    #expect(field.textSets == 0)  // "" already
    user.name = "a"
    user.name = "a"
    #expect(field.textSets == 1)
    field.text = "b"  // the receiver changed on its own
    #expect(field.textSets == 2)
    user.name = "b"  // equal to the receiver's current value
    #expect(field.textSets == 2)
    user.name = "c"
    #expect(field.text == "c")
    #expect(field.textSets == 3)
  }

  @Test func transform() {
    let user = User(name: "Ada")
    let field = TextField()
    field.bind(\.text, to: user, \.name) { "Hello, \($0)" }
    #expect(field.text == "Hello, Ada")
    user.name = "Grace"
    #expect(field.text == "Hello, Grace")
  }

  @Test func transformedEqualValuesAreNotSet() {
    let user = User(name: "ab")
    let field = TextField()
    field.bind(\.length, to: user, \.name) { $0.count }
    #expect(field.length == 2)
    #expect(field.lengthSets == 1)
    user.name = "cd"
    user.name = "ef"
    #expect(field.lengthSets == 1)
    user.name = "ghi"
    #expect(field.length == 3)
    #expect(field.lengthSets == 2)
  }

  @Test func optionalReceiverOfANonOptionalSource() {
    let user = User(name: "Ada")
    let field = TextField()
    field.bind(\.optionalText, to: user, \.name)
    #expect(field.optionalText == "Ada")
    user.name = "Grace"
    #expect(field.optionalText == "Grace")
    user.name = "Grace"
    #expect(field.optionalTextSets == 2)
  }

  @Test func nonEquatableValuesAreSetOnEveryChange() {
    let user = User()
    let field = TextField()
    field.bind(\.blob, to: user, \.blob) { $0 }
    #expect(field.blob.number == 0)
    #expect(field.blobSets == 1)
    user.blob = Blob(number: 0)
    user.blob = Blob(number: 0)
    #expect(field.blobSets == 3)
    user.blob = Blob(number: 5)
    #expect(field.blob.number == 5)
    #expect(field.blobSets == 4)
  }

  @Test func computedSource() {
    let user = User(name: "Ada")
    let field = TextField()
    field.bind(\.text, to: user, \.greeting)
    #expect(field.text == "Hello, Ada")
    user.name = "Grace"
    #expect(field.text == "Hello, Grace")
  }

  @Test func bindingsFollowNestedPaths() {
    let user = User()
    let field = TextField()
    field.bind(\.text, to: user, \.address?.city) { $0 ?? "-" }
    #expect(field.text == "-")
    let paris = Address(city: "Paris")
    user.address = paris
    #expect(field.text == "Paris")
    user.address = Address(city: "Rome")
    #expect(field.text == "Rome")
    paris.city = "Lyon"  // detached
    #expect(field.text == "Rome")
    user.address?.city = "Milan"
    #expect(field.text == "Milan")
    user.address = nil
    #expect(field.text == "-")
  }

  @Test func rebindingTheSameKeyReplacesTheOldBinding() {
    let first = User(name: "first")
    let second = User(name: "second")
    let field = TextField()
    field.bind(\.text, to: first, \.name)
    field.bind(\.text, to: second, \.name)
    #expect(field.text == "second")
    #expect(field.boundKeyPaths.count == 1)
    first.name = "stale"
    #expect(field.text == "second")
    second.name = "fresh"
    #expect(field.text == "fresh")
  }

  @Test func rebindingTheSameSourceDoesNotPileUp() {
    let user = User()
    let field = TextField()
    for _ in 0..<5 { field.bind(\.text, to: user, \.name) }
    user.name = "Ada"
    #expect(field.textSets == 1)
    #expect(field.boundKeyPaths.count == 1)
  }

  @Test func unbindKeepsTheValueAndIsIdempotent() {
    let user = User(name: "Ada")
    let field = TextField()
    field.bind(\.text, to: user, \.name)
    field.bind(\.length, to: user, \.age)
    #expect(Set(field.boundKeyPaths) == [\TextField.text, \TextField.length])
    field.unbind(\.text)
    #expect(field.boundKeyPaths == [\TextField.length])
    user.name = "Grace"
    #expect(field.text == "Ada")
    field.unbind(\.text)
    user.age = 4
    #expect(field.length == 4)
  }

  @Test func unbindAll() {
    let user = User(name: "Ada")
    let field = TextField()
    field.bind(\.text, to: user, \.name)
    field.bind(\.length, to: user, \.age)
    field.unbindAll()
    #expect(field.boundKeyPaths.isEmpty)
    user.name = "Grace"
    user.age = 9
    #expect(field.text == "Ada")
    #expect(field.length == 0)
    field.unbindAll()
    #expect(field.boundKeyPaths.isEmpty)
  }

  @Test func reciprocalBindingsSettleAfterOneChange() {
    let left = User()
    let right = User()
    var leftSets = 0
    var rightSets = 0
    let first = left.observe(\.name, options: .everySet) { _ in leftSets += 1 }
    let second = right.observe(\.name, options: .everySet) { _ in rightSets += 1 }
    left.bind(\.name, to: right, \.name)
    right.bind(\.name, to: left, \.name)
    #expect(leftSets == 0 && rightSets == 0)
    left.name = "Ada"
    #expect(right.name == "Ada")
    #expect(leftSets == 1)
    #expect(rightSets == 1)
    right.name = "Grace"
    #expect(left.name == "Grace")
    #expect(leftSets == 2)
    #expect(rightSets == 2)
    first.cancel()
    second.cancel()
  }

  @Test func twoWayBinding() {
    let form = User(name: "draft")
    let user = User(name: "Ada")
    form.bind(\.name, twoWayTo: user, \.name)
    #expect(form.name == "Ada")
    form.name = "Grace"
    #expect(user.name == "Grace")
    user.name = "Hedy"
    #expect(form.name == "Hedy")
    #expect(form.boundKeyPaths == [\User.name])
  }

  @Test func unbindingATwoWayBindingEndsBothDirections() {
    let form = User()
    let user = User(name: "Ada")
    form.bind(\.name, twoWayTo: user, \.name)
    form.unbind(\.name)
    #expect(form.boundKeyPaths.isEmpty)
    #expect(user.boundKeyPaths.isEmpty)
    form.name = "Grace"
    #expect(user.name == "Ada")
    user.name = "Hedy"
    #expect(form.name == "Grace")
  }

  @Test func twoWayBindingSettles() {
    let form = User()
    let user = User()
    var sets = 0
    let token = user.observe(\.age, options: .everySet) { _ in sets += 1 }
    form.bind(\.age, twoWayTo: user, \.age)
    form.age = 1
    #expect(user.age == 1)
    #expect(sets == 1)
    token.cancel()
  }

  @Test func receiverDeallocatedEndsTheBinding() {
    withLifetimeTracking { tracker in
      let user = User()
      weak var weakField: TextField?
      do {
        let field = TextField(tracker: tracker)
        weakField = field
        field.bind(\.text, to: user, \.name)
      }
      #expect(weakField == nil)
      user.name = "Ada"  // nobody to set: must not crash
      user.name = "Grace"
      #expect(user.name == "Grace")
    }
  }

  @Test func sourceDeallocatedLeavesTheReceiverWithItsLastValue() {
    let field = TextField()
    do {
      let user = User(name: "Ada")
      field.bind(\.text, to: user, \.name)
    }
    #expect(field.text == "Ada")
    #expect(field.boundKeyPaths.isEmpty)
  }

  @Test func aBindingDeliversTheSourcesCurrentValue() {
    let user = User()
    let field = TextField()
    // An observer that runs before the binding changes the source again.
    let token = user.observe(\.age) { change in
      if change.newValue == 1 { change.object.age = 2 }
    }
    field.bind(\.length, to: user, \.age)
    user.age = 1
    #expect(user.age == 2)
    #expect(field.length == 2)
    token.cancel()
  }
}

// MARK: - Options

extension BindingReceiverTests {
  /// Without options a binding follows every write inside a `coalesce` block (4, 5, 4 shows
  /// as 4, 5, 4); with `.coalesced` it sets the property once per transaction, with the last
  /// value, and not at all when the block ends where it began.
  @Test func aCoalescedBindingSetsOncePerTransaction() {
    let user = User()
    let plain = TextField()
    let coalesced = TextField()
    plain.bind(\.length, to: user, \.age)
    coalesced.bind(\.length, to: user, \.age, options: .coalesced)
    var seen: [Int] = []
    let token = user.observe(\.age) { _ in seen.append(coalesced.length) }
    coalesce {
      user.age = 4
      user.age = 5
      user.age = 4
    }
    #expect(plain.lengthSets == 3)
    #expect(coalesced.lengthSets == 1)
    #expect(coalesced.length == 4)
    #expect(seen == [0, 0, 0])  // the coalesced binding waited for the end of the block
    coalesce {
      user.age = 7
      user.age = 4
    }
    #expect(coalesced.lengthSets == 1)  // back where it began: nothing to set
    user.age = 9  // one write is one transaction
    #expect(coalesced.length == 9)
    #expect(coalesced.lengthSets == 2)
    token.cancel()
  }

  /// The transform variants and two-way bindings take the options too.
  @Test func transformsAndTwoWayBindingsTakeTheOptions() {
    let user = User()
    let field = TextField()
    field.bind(\.text, to: user, \.age, options: .coalesced) { "\($0) years" }
    #expect(field.text == "0 years")
    coalesce {
      user.age = 1
      user.age = 2
    }
    #expect(field.text == "2 years")
    #expect(field.textSets == 2)
    let other = User()
    other.bind(\.name, twoWayTo: user, \.name, options: .coalesced)
    coalesce {
      user.name = "a"
      user.name = "b"
    }
    #expect(other.name == "b")
    coalesce {
      other.name = "c"
      other.name = "d"
    }
    #expect(user.name == "d")
  }
}

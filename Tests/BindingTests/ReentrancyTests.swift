import Binding
import Testing

/// Mutating, registering and removing from inside callbacks.
@Suite struct ReentrancyTests {}

extension ReentrancyTests {
  @Test func mutatingTheSamePropertyInsideItsOwnCallback() {
    let user = User()
    var first: [String] = []
    var second: [String] = []
    let a = user.observe(\.name) { change in
      first.append("\(change.oldValue)>\(change.newValue)")
      if change.newValue == "a" { change.object.name = "b" }
    }
    let b = user.observe(\.name) { change in
      second.append("\(change.oldValue)>\(change.newValue)")
    }
    user.name = "a"
    #expect(user.name == "b")
    // The nested change is delivered inside the outer one; every observer ends on the final value.
    #expect(first == [">a", "a>b"])
    // The second observer first hears the nested change; the outer one is then no change for it.
    #expect(second == [">b"])
    a.cancel()
    b.cancel()
  }

  @Test func mutatingAnotherPropertyInsideACallbackSkipsNoObserver() {
    let user = User()
    var heard: [String] = []
    let first = user.observe(\.name) { change in
      heard.append("first")
      change.object.age += 1
    }
    let second = user.observe(\.name) { _ in heard.append("second") }
    let ages = user.observe(\.age) { heard.append("age \($0.newValue)") }
    user.name = "Ada"
    #expect(heard == ["first", "age 1", "second"])
    first.cancel()
    second.cancel()
    ages.cancel()
  }

  @Test func registrationAddedDuringACallbackHearsOnlyLaterChanges() {
    let user = User()
    var heard: [String] = []
    var added: [ObservationToken] = []
    let token = user.observe(\.name) { change in
      heard.append("outer \(change.newValue)")
      if added.isEmpty {
        added.append(change.object.observe(\.name) { heard.append("added \($0.newValue)") })
      }
    }
    let other = user.observe(\.name) { heard.append("other \($0.newValue)") }
    user.name = "a"
    #expect(heard == ["outer a", "other a"])
    user.name = "b"
    #expect(heard == ["outer a", "other a", "outer b", "other b", "added b"])
    token.cancel()
    other.cancel()
  }

  @Test func removingALaterTargetDuringACallback() {
    let user = User()
    let first = Probe()
    let second = Probe()
    let third = Probe()
    var heard: [String] = []
    user.addTarget(first, for: \.name) { _, change in
      heard.append("first")
      change.object.removeTarget(second)  // not `user`: the user holds this action
    }
    user.addTarget(second, for: \.name) { _, _ in heard.append("second") }
    user.addTarget(third, for: \.name) { _, _ in heard.append("third") }
    user.name = "a"
    // A registration removed during delivery is skipped from then on; the others still hear.
    #expect(heard == ["first", "third"])
    user.name = "b"
    #expect(heard == ["first", "third", "first", "third"])
  }

  @Test func removingItselfDuringItsCallbackSkipsNoOtherObserver() {
    let user = User()
    let first = Probe()
    let second = Probe()
    var heard: [String] = []
    user.addTarget(first, for: \.name) { me, _ in
      heard.append("first")
      user.removeTarget(me)
    }
    user.addTarget(second, for: \.name) { _, _ in heard.append("second") }
    user.name = "a"
    user.name = "b"
    #expect(heard == ["first", "second", "second"])
  }

  @Test func cancellingItsOwnTokenInsideTheCallback() async {
    let user = User()
    await confirmation(expectedCount: 1) { heard in
      var token: ObservationToken?
      token = user.observe(\.name) { _ in
        heard()
        token?.cancel()
      }
      user.name = "a"
      user.name = "b"
      #expect(token?.isActive == false)
    }
  }

  @Test func cancellingAnotherTokenDuringDelivery() {
    let user = User()
    var heard: [String] = []
    var later: ObservationToken?
    let earlier = user.observe(\.age) { _ in
      heard.append("earlier")
      later?.cancel()
    }
    later = user.observe(\.age) { _ in heard.append("later") }
    user.age = 1
    #expect(heard == ["earlier"])
    earlier.cancel()
  }

  @Test func bindingInsideACallback() {
    let user = User(name: "Ada")
    let field = TextField()
    let token = user.observe(\.age) { change in
      field.bind(\.text, to: change.object, \.name)
    }
    user.age = 1
    #expect(field.text == "Ada")
    user.name = "Grace"
    #expect(field.text == "Grace")
    token.cancel()
  }

  @Test func deletingInsideACallback() {
    let user = User()
    var kinds: [String] = []
    let first = user.observe(\.age, onDeletion: { kinds.append("first deletion") }) { change in
      kinds.append("first \(change.kind)")
      change.object.announceDeletion()
    }
    let second = user.observe(\.age, onDeletion: { kinds.append("second deletion") }) {
      kinds.append("second \($0.kind)")
    }
    user.age = 1
    #expect(user.isDeleted)
    #expect(kinds == ["first change", "first deletion", "second change", "second deletion"])
    first.cancel()
    second.cancel()
  }

  @Test func coalescedCallbacksRegisteringDuringTheFlush() {
    let user = User()
    var heard: [String] = []
    var added: [ObservationToken] = []
    let token = user.observe(\.name, options: .coalesced) { change in
      heard.append("coalesced \(change.newValue)")
      added.append(change.object.observe(\.age) { heard.append("age \($0.newValue)") })
    }
    coalesce { user.name = "Ada" }
    user.age = 1
    #expect(heard == ["coalesced Ada", "age 1"])
    token.cancel()
  }
}

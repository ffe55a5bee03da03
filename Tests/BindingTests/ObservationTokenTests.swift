import Binding
import Testing

/// Target-less `observe` and its `ObservationToken`.
@Suite struct ObservationTokenTests {}

extension ObservationTokenTests {
  @Test func observeDeliversUntilCancelled() async {
    let user = User()
    await confirmation(expectedCount: 2) { heard in
      let token = user.observe(\.name) { _ in heard() }
      user.name = "a"
      user.name = "b"
      token.cancel()
      user.name = "c"
    }
  }

  @Test func isActiveUntilCancelAndCancelIsIdempotent() {
    let user = User()
    var values: [String] = []
    let token = user.observe(\.name) { values.append($0.newValue) }
    #expect(token.isActive)
    token.cancel()
    #expect(!token.isActive)
    token.cancel()
    #expect(!token.isActive)
    user.name = "a"
    #expect(values.isEmpty)
  }

  @Test func droppingTheTokenAtOnceDeliversNothing() async {
    let user = User()
    await confirmation(expectedCount: 0) { heard in
      _ = user.observe(\.name) { _ in heard() }
      user.name = "a"
    }
  }

  @Test func releasingTheTokenCancels() async {
    let user = User()
    await confirmation(expectedCount: 1) { heard in
      var token: ObservationToken? = user.observe(\.name) { _ in heard() }
      user.name = "a"
      #expect(token?.isActive == true)
      token = nil
      user.name = "b"
    }
  }

  @Test func storeInSetKeepsTheObservationAlive() async {
    let user = User()
    var tokens = Set<ObservationToken>()
    await confirmation(expectedCount: 2) { heard in
      user.observe(\.name) { _ in heard() }.store(in: &tokens)
      user.observe(\.age) { _ in heard() }.store(in: &tokens)
      #expect(tokens.count == 2)
      user.name = "a"
      user.age = 1
      tokens.removeAll()
      user.name = "b"
      user.age = 2
    }
  }

  @Test func storeInArrayKeepsTheObservationAlive() async {
    let user = User()
    var tokens: [ObservationToken] = []
    await confirmation(expectedCount: 2) { heard in
      user.observe(\.name) { _ in heard() }.store(in: &tokens)
      user.observe(\.name) { _ in heard() }.store(in: &tokens)
      #expect(tokens.count == 2)
      user.name = "a"
      tokens = []
      user.name = "b"
    }
  }

  @Test func tokensAreEqualOnlyToThemselves() {
    let user = User()
    let first = user.observe(\.name) { _ in }
    let second = user.observe(\.name) { _ in }
    #expect(first == first)
    #expect(first != second)
    #expect(Set([first, first, second]).count == 2)
  }

  @Test func observeWithInitial() throws {
    let user = User(name: "Ada")
    var changes: [KeyPathChange<User, String>] = []
    defer { changes = [] }  // the changes hold the user, which holds the handler: a cycle
    let token = user.observe(\.name, options: .initial) { changes.append($0) }
    let initial = try #require(changes.first)
    #expect(changes.count == 1)
    #expect(initial.isInitial)
    #expect(initial.oldValue == "Ada" && initial.newValue == "Ada")
    token.cancel()
  }

  @Test func tokenIsInactiveOnceTheObjectIsDeallocated() {
    var user: User? = User()
    let token = user?.observe(\.name) { _ in }
    #expect(token?.isActive == true)
    user = nil
    #expect(token?.isActive == false)
    token?.cancel()  // harmless after the object died
  }

  @Test func tokenIsInactiveOnceTheObjectIsDeleted() {
    let user = User()
    let token = user.observe(\.name) { _ in }
    user.announceDeletion()
    #expect(!token.isActive)
  }

  @Test func cancellingOneTokenLeavesOthersRunning() {
    let user = User()
    var heard: [String] = []
    let first = user.observe(\.name) { _ in heard.append("first") }
    let second = user.observe(\.name) { _ in heard.append("second") }
    first.cancel()
    user.name = "a"
    #expect(heard == ["second"])
    second.cancel()
  }

  @Test func observeEventsTokenCancels() async {
    let user = User()
    await confirmation(expectedCount: 1) { heard in
      let token = user.observeEvents { _ in heard() }
      user.age = 1
      token.cancel()
      #expect(!token.isActive)
      user.age = 2
    }
  }
}

import Binding
import Foundation
import Observation
import Testing

/// The README's examples before issue 31 (design.md §3, the Binding part), made concrete, each
/// asserting its effect; the README's current ones are checked snippets (ReadmeSnippetsTests). `User` and `Address` are the fixtures in Support/Models.swift (the README's `User`
/// plus a few properties); `Label` is the main-actor receiver in Support/Views.swift.
@Suite struct ReadmeExamplesTests {}

/// The README's view, on the main actor like a real one.
@MainActor
private final class ProfileView {
  var title = ""
  var city: String?
  var greetings: [String] = []
  var names: [String] = []

  func show(_ user: User) {
    // Targets: held weakly; the callback gets the change (object, key path, old, new).
    user.addTarget(self, for: \.name) { me, change in me.title = change.newValue }
    user.addTarget(self, for: \.address?.city) { me, change in me.city = change.newValue }
    user.addTarget(self, for: \.greeting, options: .initial) { me, change in
      me.greetings.append(change.newValue)
    }
    user.addTarget(self, action: ProfileView.nameChanged, for: \.name)
  }

  func nameChanged(_ change: KeyPathChange<User, String>) {
    names.append("\(change.oldValue) → \(change.newValue)")
  }

  func hideName(of user: User) {
    user.removeTarget(self, for: \.name)
  }
}

extension ReadmeExamplesTests {
  @MainActor
  @Test func targets() async {
    let user = User()
    let view = ProfileView()
    view.show(user)
    #expect(await eventually { view.greetings == ["Hello, "] })  // `.initial`
    user.name = "Ada"
    #expect(await eventually { view.title == "Ada" })
    #expect(view.names == [" → Ada"])
    #expect(view.greetings == ["Hello, ", "Hello, Ada"])

    user.address = Address(city: "London")
    #expect(await eventually { view.city == "London" })
    user.address = Address(city: "Paris")  // nested paths survive replacing `address`
    user.address?.city = "Lyon"
    #expect(await eventually { view.city == "Lyon" })

    view.hideName(of: user)
    user.name = "Grace"
    user.address?.city = "Nice"
    #expect(await eventually { view.city == "Nice" })
    #expect(view.title == "Ada")
    #expect(view.names == [" → Ada"])
    #expect(view.greetings.last == "Hello, Grace")  // still observed
  }

  @MainActor
  @Test func bindings() async {
    let user = User(name: "Ada")
    let label = Label()
    label.bind(\.text, to: user, \.name)  // the receiver adopts a one-line protocol
    #expect(label.text == "Ada")  // set now
    user.name = "Grace"
    #expect(await eventually { label.text == "Grace" })  // then kept in sync

    label.bind(\.text, to: user, \.name) { "Hello, \($0)" }  // transform (replaces the binding)
    #expect(label.text == "Hello, Grace")
    user.name = "Hedy"
    #expect(await eventually { label.text == "Hello, Hedy" })

    label.bind(\.text, to: user, \.name, options: .coalesced)  // once per transaction
    coalesce {
      user.name = "Lise"
      user.name = "Emmy"
    }
    #expect(await eventually { label.text == "Emmy" })

    label.unbind(\.text)
    user.name = "Joan"
    // Let the main queue run what a binding would have queued.
    await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume() }
    }
    #expect(label.text == "Emmy")
    #expect(label.texts.suffix(2) == ["Hedy", "Emmy"])  // set at once, then once for the block
    #expect(label.texts.count == 6)
  }

  @Test func coalescedBatchEdits() {
    let user = User()
    let probe = Probe()
    var heard: [String] = []
    user.addTarget(probe, for: \.name, options: .coalesced) { _, change in
      heard.append("\(change.oldValue) → \(change.newValue)")
    }
    // Opted-in targets hear once, after the block, first old + last new.
    coalesce {
      user.name = "Ada"
      user.name = "Ada Lovelace"
    }
    #expect(heard == [" → Ada Lovelace"])
  }

  @Test func tokens() {
    let user = User()
    var printed: [String] = []
    var tokens = Set<ObservationToken>()
    user.observe(\.name) { printed.append($0.newValue) }.store(in: &tokens)
    user.observe(\.address?.city, options: .initial) { change in
      printed.append(change.newValue ?? "no city")
    }.store(in: &tokens)
    user.name = "Ada"
    user.address = Address(city: "London")
    #expect(printed == ["no city", "Ada", "London"])
    tokens.removeAll()
    user.name = "Grace"
    #expect(printed.count == 3)
  }

  @Test func wholeObjectEvents() {
    let order = User()
    var log: [String] = []
    let token = order.observeEvents(options: .coalesced) { event in
      switch event {
      case .updated(_, let changes): log.append("changed: \(changes.names)")
      case .deleted: log.append("gone")
      }
    }
    coalesce {
      order.name = "#42"
      order.age = 3
    }
    order.announceDeletion()
    #expect(log == [#"changed: ["name", "age"]"#, "gone"])
    #expect(!token.isActive)
  }

  @Test func asyncSequence() async {
    let user = User()
    let changes = user.changes(for: \.name)
    user.name = "Ada"
    user.announceDeletion()  // ends the sequence
    var printed: [String] = []
    for await change in changes { printed.append(change.newValue) }
    #expect(printed == ["Ada"])  // the change; the deletion is not one, and ends the sequence
  }

  @Test func twoWayBinding() {
    let form = User()
    let user = User(name: "Ada")
    form.bind(\.name, twoWayTo: user, \.name)
    #expect(form.name == "Ada")
    form.name = "Ada Lovelace"
    #expect(user.name == "Ada Lovelace")
  }

  @Test func swiftObservation() {
    final class Account: ObservationBridging {
      let observation = ObservationStorage()
      @Observed var name = ""
    }
    let account = Account()
    let changed = AtomicCounter()
    withObservationTracking {
      _ = account.name
    } onChange: {
      changed.increment()
    }
    account.name = "Ada"
    #expect(changed.value == 1)
  }
}

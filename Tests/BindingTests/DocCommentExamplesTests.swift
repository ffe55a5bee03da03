import Binding
import Observation
import Synchronization
import Testing

/// The examples of the documentation comments of Sources/Binding, as the comments show them
/// (`DocumentationSnippetTests`, in the CollectionController tests, fails when a comment's
/// block and its region differ), run, and checked against what the comments say.
///
/// The names the examples use (`user`, `order`, `label`, `self`) are the fixtures below, nested
/// in the suite so that they do not clash with the other tests' models; an example that uses
/// `self` is a method of a `ProfileView`. An example's `print` is a local `PrintRecorder`, so
/// what it prints is checked too. The examples of `KeyPathChange.swift` and of the
/// registrations are in DocCommentObservingExamplesTests.swift, those of `DependencyTracker`
/// in Dependencies/DocCommentTrackerExamplesTests.swift.
@Suite struct DocCommentExamplesTests {}

// MARK: Fixtures

extension DocCommentExamplesTests {
  final class Address: ObservableModel {
    let observation = ObservationStorage()
    @Observed var city = ""
  }

  /// A value that is not `Equatable`.
  struct Profile {
    var bio = ""
  }

  final class User: ObservableModel {
    let observation = ObservationStorage()
    @Observed var name = ""
    @Observed var age = 0
    @Observed var address: Address?
    @Observed var profile = Profile()
    var greeting: String { "Hello, \(name)" }
  }

  final class Order: ObservableModel {
    enum Status {
      case new
      case paid
    }

    let observation = ObservationStorage()
    @Observed var total = 0
    @Observed var status = Status.new
  }

  final class Customer: ObservableModel {
    let observation = ObservationStorage()
    @Observed var name = ""
  }

  /// A model edited in a form, bound both ways to a `User`.
  final class Form: ObservableModel {
    let observation = ObservationStorage()
    @Observed var name = ""
  }

  final class Label: BindingReceiver {
    var text: String?
    var title = ""
  }

  /// What a preview shows: not `Equatable`.
  struct Document {
    var profile: Profile
  }

  final class Preview: BindingReceiver {
    var document = Document(profile: Profile()) { didSet { documentSets += 1 } }
    var documentSets = 0
  }

  /// A store that deletes records (`ObservableModel.announceDeletion()`'s example).
  final class Store {
    var records: [Order] = []

    func delete(_ record: Order) { records.removeAll { $0 === record } }
  }

  /// Stands for `print` in the examples (a local `let print = PrintRecorder()`): keeps the
  /// lines, as `print` would write them.
  final class PrintRecorder: Sendable {
    private let recorded = Mutex<[String]>([])

    /// The lines printed so far.
    var lines: [String] { recorded.withLock { $0 } }

    func callAsFunction(_ items: Any...) {
      let line = items.map { "\($0)" }.joined(separator: " ")
      recorded.withLock { $0.append(line) }
    }
  }

  /// The view of the examples that register `self` (a binding receiver too, to show that
  /// `removeTarget` leaves its bindings). Those examples are methods of its subclasses, each
  /// declared in an extension of the suite, where the suite's types are in scope (they are not
  /// in an extension of `ProfileView`).
  class ProfileView: BindingReceiver {
    var title = "" { didSet { titles.append(title) } }
    /// Every value `title` was set to.
    var titles: [String] = []
    var subtitle = ""
    var animates = true
    let totalLabel = Label()
    /// What the examples print, and what `nameChanged(_:)`, `refresh()` and `close()` do, in
    /// order.
    let log = PrintRecorder()

    func nameChanged(_ change: KeyPathChange<User, String>) {
      log("nameChanged", change.oldValue, "→", change.newValue)
    }

    func refresh() { log("refresh()") }

    func close() { log("close()") }
  }
}

// MARK: ObservableModel, Observed, ObservationBridging

extension DocCommentExamplesTests {
  final class ModelView: ProfileView {
    /// `ObservableModel`'s example: a model declared here, and a target.
    func adoptObservableModel() {
      // snippet binding-doc-observable-model: Sources/Binding/ObservableModel.swift
      final class User: ObservableModel {
        let observation = ObservationStorage()
        @Observed var name = ""
        @Observed var address: Address?
        var greeting: String { "Hello, \(name)" }  // observable through `name`
      }

      let user = User()
      user.addTarget(self, for: \.name) { me, change in me.title = change.newValue }
      // end snippet
      var greetings: [String] = []
      let token = user.observe(\.greeting) { greetings.append($0.newValue) }
      user.name = "Ada"
      token.cancel()
      log(greetings)
    }
  }
}

extension DocCommentExamplesTests {
  @Test func observableModel() {
    let view = ModelView()
    view.adoptObservableModel()
    #expect(view.title == "Ada")
    #expect(view.log.lines == [#"["Hello, Ada"]"#])
  }

  @Test func observationStorage() {
    final class Note: ObservableModel {
      // snippet binding-doc-observation-storage: Sources/Binding/ObservableModel.swift
      let observation = ObservationStorage()
      // end snippet
      @Observed var text = ""
    }
    let note = Note()
    var texts: [String] = []
    let token = note.observe(\.text) { texts.append($0.newValue) }
    note.text = "Hi"
    token.cancel()
    #expect(texts == ["Hi"])
  }

  @Test func announceDeletion() {
    let store = Store()
    let record = Order()
    store.records = [record]
    var heard: [String] = []
    let token = record.observe(\.total, onDeletion: { heard.append("deleted") }) { _ in }
    // snippet binding-doc-announce-deletion: Sources/Binding/ObservableModel.swift
    store.delete(record)
    record.announceDeletion()
    // end snippet
    #expect(store.records.isEmpty)
    #expect(record.isDeleted)
    #expect(heard == ["deleted"])
    #expect(!token.isActive)
  }

  @Test func observed() {
    // snippet binding-doc-observed: Sources/Binding/Observed.swift
    final class User: ObservableModel {
      let observation = ObservationStorage()
      @Observed var name = ""
    }
    // end snippet
    let user = User()
    var names: [String] = []
    let token = user.observe(\.name) { names.append($0.newValue) }
    user.name = "Ada"
    user.name = "Ada"  // an equal value: not a change
    token.cancel()
    #expect(names == ["Ada"])
  }

  @Test func observationBridging() {
    let print = PrintRecorder()
    // snippet binding-doc-observation-bridging: Sources/Binding/ObservationBridging.swift
    final class User: ObservationBridging {
      let observation = ObservationStorage()
      @Observed var name = ""
    }

    let user = User()
    withObservationTracking {
      _ = user.name
    } onChange: {
      print("will change")
    }
    // end snippet
    #expect(print.lines.isEmpty)
    user.name = "Ada"
    #expect(print.lines == ["will change"])
    user.name = "Grace"  // `withObservationTracking` tells one change
    #expect(print.lines == ["will change"])
  }
}

// MARK: ObservationToken

extension DocCommentExamplesTests {
  @Test func tokenStoredInASet() {
    let user = User()
    let print = PrintRecorder()
    // snippet binding-doc-token-set: Sources/Binding/ObservationToken.swift
    var tokens = Set<ObservationToken>()
    user.observe(\.name) { print($0.newValue) }.store(in: &tokens)
    // end snippet
    user.name = "Ada"
    #expect(print.lines == ["Ada"])
    #expect(tokens.count == 1)
  }

  @Test func removingStoredTokensEndsTheirObservation() {
    let user = User()
    let print = PrintRecorder()
    // snippet binding-doc-token-store-set: Sources/Binding/ObservationToken.swift
    var tokens = Set<ObservationToken>()
    user.observe(\.name) { print($0.newValue) }.store(in: &tokens)
    tokens.removeAll()  // ends the observation
    // end snippet
    user.name = "Ada"
    #expect(print.lines.isEmpty)
  }

  @Test func tokenStoredInAnArray() {
    let user = User()
    let print = PrintRecorder()
    // snippet binding-doc-token-store-array: Sources/Binding/ObservationToken.swift
    var tokens: [ObservationToken] = []
    user.observe(\.name) { print($0.newValue) }.store(in: &tokens)
    // end snippet
    user.name = "Ada"
    #expect(print.lines == ["Ada"])
    tokens.removeAll()
    user.name = "Grace"
    #expect(print.lines == ["Ada"])
  }
}

// MARK: coalesce, changes(for:)

extension DocCommentExamplesTests {
  @Test func coalesceBlock() {
    let user = User()
    let view = ProfileView()
    user.addTarget(view, for: \.name, options: .coalesced) { me, change in
      me.log("\(change.oldValue) → \(change.newValue)")
    }
    var uncoalesced: [String] = []
    let token = user.observe(\.name) { uncoalesced.append($0.newValue) }
    // snippet binding-doc-coalesce: Sources/Binding/Coalescing.swift
    coalesce {
      user.name = "Ada"
      user.name = "Ada Lovelace"
    }
    // A coalesced target of \.name hears once: "" → "Ada Lovelace".
    // end snippet
    token.cancel()
    #expect(view.log.lines == [" → Ada Lovelace"])
    #expect(uncoalesced == ["Ada", "Ada Lovelace"])  // without the option: each write
  }

  /// The loop ends when the user is deleted, by a task that runs when the loop waits.
  @MainActor
  @Test func changesWithTheInitialValue() async {
    let user = User()
    user.name = "Ada"
    let print = PrintRecorder()
    Task {
      user.name = "Ada Lovelace"
      user.announceDeletion()
    }
    // snippet binding-doc-changes-initial: Sources/Binding/KeyPathChanges.swift
    for await change in user.changes(for: \.name, options: .initial) {
      print(change.newValue)
    }
    // end snippet
    #expect(print.lines == ["Ada", "Ada Lovelace"])
    #expect(user.isDeleted)
  }

  @MainActor
  @Test func changes() async {
    let user = User()
    let print = PrintRecorder()
    Task {
      user.name = "Ada"
      user.name = "Ada Lovelace"
      user.announceDeletion()
    }
    // snippet binding-doc-changes: Sources/Binding/ObservableModel+Observing.swift
    for await change in user.changes(for: \.name) { print(change.newValue) }
    // end snippet
    #expect(print.lines == ["Ada", "Ada Lovelace"])
  }
}

// MARK: BindingReceiver

extension DocCommentExamplesTests {
  @Test func adoptingBindingReceiver() {
    let user = User()
    user.name = "Ada"
    // snippet binding-doc-binding-receiver: Sources/Binding/BindingReceiver.swift
    final class Label: BindingReceiver {  // or `extension Label: BindingReceiver {}`
      var text: String?
    }
    let label = Label()

    label.bind(\.text, to: user, \.name)  // set now, then on every change
    label.bind(\.text, to: user, \.name) { "Hello, \($0)" }  // through a transform
    label.unbind(\.text)
    // end snippet
    #expect(label.text == "Hello, Ada")  // the second binding replaced the first
    user.name = "Grace"
    #expect(label.text == "Hello, Ada")  // unbound: keeps its value
  }

  @Test func bind() {
    let user = User()
    let label = Label()
    // snippet binding-doc-bind: Sources/Binding/BindingReceiver.swift
    label.bind(\.title, to: user, \.greeting)
    // end snippet
    #expect(label.title == "Hello, ")
    user.name = "Ada"
    #expect(label.title == "Hello, Ada")
  }

  @Test func bindAnOptionalProperty() {
    let user = User()
    user.name = "Ada"
    let label = Label()
    // snippet binding-doc-bind-optional: Sources/Binding/BindingReceiver.swift
    label.bind(\.text, to: user, \.name)  // `text` is a `String?`, `name` a `String`
    // end snippet
    #expect(label.text == "Ada")
    user.name = "Grace"
    #expect(label.text == "Grace")
  }

  @Test func bindThroughATransform() {
    let user = User()
    let label = Label()
    // snippet binding-doc-bind-transform: Sources/Binding/BindingReceiver.swift
    label.bind(\.text, to: user, \.name) { "Hello, \($0)" }
    // end snippet
    #expect(label.text == "Hello, ")
    user.name = "Ada"
    #expect(label.text == "Hello, Ada")
  }

  @Test func bindAValueThatIsNotEquatable() {
    let user = User()
    let preview = Preview()
    // snippet binding-doc-bind-not-equatable: Sources/Binding/BindingReceiver.swift
    preview.bind(\.document, to: user, \.profile) { Document(profile: $0) }  // not Equatable
    // end snippet
    #expect(preview.documentSets == 1)  // at once
    user.profile = Profile(bio: "Mathematician")
    #expect(preview.document.profile.bio == "Mathematician")
    user.profile = Profile(bio: "Mathematician")  // set again: there is no telling it is equal
    #expect(preview.documentSets == 3)
  }

  @Test func bindTwoWays() {
    let user = User()
    user.name = "Ada"
    let form = Form()
    // snippet binding-doc-bind-two-way: Sources/Binding/BindingReceiver.swift
    form.bind(\.name, twoWayTo: user, \.name)
    // end snippet
    #expect(form.name == "Ada")
    form.name = "Ada Lovelace"
    #expect(user.name == "Ada Lovelace")
    user.name = "Grace"
    #expect(form.name == "Grace")
  }
}

import Binding
import Testing

/// The README's `Binding` examples, as the README shows them (`DocumentationSnippetTests`, in
/// the CollectionController tests, fails when the README's blocks and these regions differ),
/// run, and checked. The README's controller examples are in
/// Tests/CollectionControllerTests/TableViewExamplesTests.swift.
@Suite struct ReadmeSnippetsTests {}

extension ReadmeSnippetsTests {
  @Test func observeBindAndCoalesce() {
    // snippet readme-observe: README.md
    final class Address: ObservableModel {
      let observation = ObservationStorage()
      @Observed var city = ""
    }

    final class User: ObservableModel {
      let observation = ObservationStorage()  // the one extra line
      @Observed var name = ""
      @Observed var address: Address?
      var greeting: String { "Hello, \(name)" }  // computed: observable through what it reads
    }

    final class ProfileScreen {
      var title = ""
      var city: String?
    }

    let user = User()
    let screen = ProfileScreen()

    // A target is held weakly; its callback gets the change: object, key path, old, new value.
    user.addTarget(screen, for: \.name) { screen, change in
      screen.title = change.newValue
    }
    user.addTarget(screen, for: \.address?.city) { screen, change in
      screen.city = change.newValue  // follows a replaced address
    }

    // Without a target: the token ends the observation when cancelled or released.
    var greetings: [String] = []
    let token = user.observe(\.greeting) { change in
      greetings.append(change.newValue)
    }

    user.name = "Ada"  // screen.title == "Ada", greetings == ["Hello, Ada"]
    user.address = Address()
    user.address?.city = "London"  // screen.city == "London"
    // end snippet
    #expect(screen.title == "Ada")
    #expect(greetings == ["Hello, Ada"])
    #expect(screen.city == "London")

    // snippet readme-bind: README.md
    final class Label: BindingReceiver {  // any class, with one line
      var text: String?
    }

    let label = Label()
    label.bind(\.text, to: user, \.greeting)  // now, then on every change: "Hello, Ada"

    // Coalesced registrations hear a block's edits once: the first old, the last new value.
    var renames: [String] = []
    let renaming = user.observe(\.name, options: .coalesced) { change in
      renames.append("\(change.oldValue) → \(change.newValue)")
    }
    coalesce {
      user.name = "Ada King"
      user.name = "Ada Lovelace"
    }
    // renames == ["Ada → Ada Lovelace"], label.text == "Hello, Ada Lovelace"
    // end snippet
    #expect(label.text == "Hello, Ada Lovelace")
    #expect(renames == ["Ada → Ada Lovelace"])
    #expect(screen.title == "Ada Lovelace")
    #expect(greetings == ["Hello, Ada", "Hello, Ada King", "Hello, Ada Lovelace"])
    token.cancel()
    renaming.cancel()
    user.name = "Grace"
    #expect(greetings.count == 3 && renames.count == 1)
  }
}

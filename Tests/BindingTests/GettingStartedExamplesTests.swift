import Binding
import Testing

/// The examples of `Binding`'s DocC articles (Binding.md's overview, GettingStarted.md), as the
/// articles show them (`DocumentationSnippetTests`, in the CollectionController tests, fails
/// when an article's block and its region differ), run, and checked against what their
/// comments claim. An article's blocks that build on each other are consecutive regions of one
/// test, in the article's order. The examples call `print`: each test declares a local `print`
/// that records the lines instead, so that what they print is checked too.
@Suite struct GettingStartedExamplesTests {}

extension GettingStartedExamplesTests {
  @Test func theOverviewExample() {
    // snippet binding-overview: Binding/Binding.md
    final class Address: ObservableModel {
      let observation = ObservationStorage()
      @Observed var city = ""
    }

    final class User: ObservableModel {
      let observation = ObservationStorage()  // the one extra line
      @Observed var name = ""
      @Observed var address: Address?
      var greeting: String { "Hello, \(name)" }  // observable through what it reads
    }

    final class ProfileScreen: BindingReceiver {
      var title = ""
      var city: String?
      var greeting: String?

      func show(_ user: User) {
        user.addTarget(self, for: \.name, options: .coalesced) { me, change in
          me.title = change.newValue  // once per coalesce block
        }
        user.addTarget(self, for: \.address?.city) { me, change in me.city = change.newValue }
        bind(\.greeting, to: user, \.greeting)  // now, then on every change
      }
    }

    let user = User()
    let screen = ProfileScreen()
    screen.show(user)

    coalesce {
      user.name = "Ada"
      user.name = "Ada Lovelace"
    }
    // screen.title is set once, to "Ada Lovelace"; screen.greeting == "Hello, Ada Lovelace"
    // end snippet
    #expect(screen.title == "Ada Lovelace")
    #expect(screen.greeting == "Hello, Ada Lovelace")
    // Set once, when the block ends: not yet inside it.
    var titleInsideTheBlock: String?
    coalesce {
      user.name = "Grace"
      titleInsideTheBlock = screen.title
      user.name = "Grace Hopper"
    }
    #expect(titleInsideTheBlock == "Ada Lovelace")
    #expect(screen.title == "Grace Hopper")
    #expect(screen.greeting == "Hello, Grace Hopper")
    user.address = Address()
    user.address?.city = "London"
    #expect(screen.city == "London")
  }

  /// GettingStarted.md, from its models to deletion, in order.
  @MainActor
  @Test func theGettingStartedArticle() async {
    let printed = LockedList<String>()
    @Sendable func print(_ items: Any..., separator: String = " ") {
      printed.append(items.map { "\($0)" }.joined(separator: separator))
    }

    // snippet binding-started-models: Binding/GettingStarted.md
    final class Address: ObservableModel {
      let observation = ObservationStorage()
      @Observed var city = ""
    }

    final class User: ObservableModel {
      let observation = ObservationStorage()
      @Observed var name = ""
      @Observed var address: Address?
      var greeting: String { "Hello, \(name)" }  // computed: observable through `name`
    }
    // end snippet

    // snippet binding-started-targets: Binding/GettingStarted.md
    final class ProfileScreen {
      var title = ""
    }

    let user = User()
    let screen = ProfileScreen()

    user.addTarget(screen, for: \.name) { screen, change in
      screen.title = change.newValue
      print(change.oldValue, "→", change.newValue)
    }
    user.name = "Ada"  // prints " → Ada"
    // end snippet
    #expect(printed.values == [" → Ada"])
    #expect(screen.title == "Ada")

    // snippet binding-started-paths: Binding/GettingStarted.md
    user.addTarget(screen, for: \.address?.city) { screen, change in
      print("city:", change.newValue ?? "none")
    }
    user.addTarget(screen, for: \.greeting, options: .initial) { screen, change in
      screen.title = change.newValue
    }
    // end snippet
    #expect(screen.title == "Hello, Ada")  // `.initial`: at once
    user.address = Address()
    user.address?.city = "London"
    let replaced = Address()
    replaced.city = "Paris"
    user.address = replaced  // the path follows the new address
    user.address = nil
    #expect(printed.values == [" → Ada", "city: ", "city: London", "city: Paris", "city: none"])

    // snippet binding-started-tokens: Binding/GettingStarted.md
    var tokens = Set<ObservationToken>()
    user.observe(\.name) { change in print(change.newValue) }.store(in: &tokens)

    Task {
      for await change in user.changes(for: \.name) { print(change.newValue) }
    }
    // end snippet
    #expect(tokens.count == 1)
    await Task.yield()  // the task starts iterating (the main actor runs it first)

    // snippet binding-started-bind: Binding/GettingStarted.md
    final class Label: BindingReceiver {
      var text: String?
    }

    let label = Label()
    label.bind(\.text, to: user, \.name)  // text == user.name from now on
    label.bind(\.text, to: user, \.name) { "Hello, \($0)" }  // through a transform
    label.unbind(\.text)  // keeps its last value
    // end snippet
    #expect(label.text == "Hello, Ada")

    // snippet binding-started-coalesce: Binding/GettingStarted.md
    user.addTarget(screen, for: \.name, options: .coalesced) { screen, change in
      print("once:", change.oldValue, "→", change.newValue)
    }
    coalesce {
      user.name = "Grace"
      user.name = "Grace Hopper"
    }
    // prints "once: Ada → Grace Hopper"
    // end snippet
    #expect(printed.values.filter { $0.hasPrefix("once:") } == ["once: Ada → Grace Hopper"])
    // The registrations without the option heard each edit (the target of "Hear changes", then
    // the token's closure); the unbound label none.
    #expect(
      printed.values.suffix(5) == [
        "Ada → Grace", "Grace", "Grace → Grace Hopper", "Grace Hopper", "once: Ada → Grace Hopper",
      ])
    #expect(label.text == "Hello, Ada")
    // The sequence hears both edits too, in its task; the deletion finishes it.
    user.announceDeletion()
    #expect(await eventually { printed.values.filter { $0 == "Grace Hopper" }.count == 2 })
    #expect(printed.values.filter { $0 == "Grace" }.count == 2)

    // snippet binding-started-deletion: Binding/GettingStarted.md
    final class Order: ObservableModel {
      let observation = ObservationStorage()
      @Observed var total = 0
    }

    final class OrderScreen {
      var total = 0
      var isClosed = false
      func show(_ total: Int) { self.total = total }
      func close() { isClosed = true }
    }

    let order = Order()
    let orderScreen = OrderScreen()
    order.addTarget(orderScreen, for: \.total, onDeletion: { screen in screen.close() }) {
      screen, change in screen.show(change.newValue)
    }
    order.total = 42  // orderScreen.total == 42
    order.announceDeletion()  // orderScreen.isClosed == true; the registration has ended
    // end snippet
    #expect(orderScreen.total == 42)
    #expect(orderScreen.isClosed)
    order.total = 7
    #expect(orderScreen.total == 42)
  }
}

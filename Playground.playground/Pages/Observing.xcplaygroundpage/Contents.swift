/*:
 # Observing

 > **Opening the playground in Xcode.** The pages `import Binding` and `import
 > CollectionController`, so Xcode must build the package's modules first. What should work
 > (we have not tried it: the package is developed and checked on Linux, without Xcode):
 > 1. Open the package folder (or its `Package.swift`) in Xcode.
 > 2. Choose a scheme that builds both libraries (`swift-binding-Package`, or
 >    `CollectionController`, which builds `Binding` too) with My Mac as destination, and build.
 > 3. Open `Playground.playground` from the project navigator and run a page. "Build Active
 >    Scheme" is on in the playground's File inspector (`contents.xcplayground` sets it), so the
 >    imports resolve against the modules just built.
 >
 > If Xcode still reports "No such module", create a workspace (File ▸ New ▸ Workspace), add
 > the package folder and the playground to it, build the scheme there, and run the page again.
 > On Linux, `Scripts/run-playground` compiles and runs every page against the built modules
 > and compares the output with `transcript.txt`.

 A class becomes observable by adopting `ObservableModel` with one extra line, and marking
 its observable stored properties `@Observed`.
 */
import Binding

final class Address: ObservableModel {
  let observation = ObservationStorage()
  @Observed var city = ""
}

final class User: ObservableModel {
  let observation = ObservationStorage()
  @Observed var name = ""
  @Observed var address: Address?
  var greeting: String { "Hello, \(name)" }
}

final class Screen {
  var title = ""
}

let user = User()
let screen = Screen()

example("A target hears old and new values") {
  user.addTarget(screen, for: \.name) { screen, change in
    screen.title = change.newValue
    print("name: \(change.oldValue) → \(change.newValue)")
  }
  user.name = "Ada"
  user.name = "Ada Lovelace"
  user.removeTarget(screen, for: \.name)  // or let the screen go: targets are held weakly
  user.name = "Ada L."  // no longer heard
}

example("Nested paths follow a replaced object") {
  let token = user.observe(\.address?.city) { print("city:", $0.newValue ?? "none") }
  let london = Address()
  user.address = london
  london.city = "London"
  user.address = nil
  london.city = "Paris"  // the old address no longer reports
  token.cancel()
}

example("Computed properties are observed through what they read") {
  let token = user.observe(\.greeting, options: .initial) { print($0.newValue) }
  user.name = "Grace"
  token.cancel()
}

example("Coalesced edits are delivered once") {
  user.addTarget(screen, for: \.name, options: .coalesced) { _, change in
    print("once: \(change.oldValue) → \(change.newValue)")
  }
  coalesce {
    user.name = "G."
    user.name = "Grace Hopper"
  }
  user.removeTarget(screen)
}

example("A deletion is not a change: onDeletion hears it") {
  let guest = User()
  guest.addTarget(screen, for: \.name, onDeletion: { _ in print("deleted: close the screen") }) {
    _, change in print("name: \(change.oldValue) → \(change.newValue)")
  }
  guest.name = "Two"
  guest.announceDeletion()  // the change handler is not called: no "Two → Two"
  guest.name = "Three"  // the registration ended
}

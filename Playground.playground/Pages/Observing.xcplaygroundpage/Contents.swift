/*:
 # Observing

 A class becomes observable by adopting `ObservableModel` with one extra line, and marking
 its observable stored properties `@Observed`. Open this playground from the package's
 workspace in Xcode (File ▸ Open the package folder, then the playground) so that `Binding`
 can be imported.
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
}

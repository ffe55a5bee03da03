/*:
 # Binding

 Any class can receive bindings by adopting `BindingReceiver` in one line. A binding sets the
 property at once, then again whenever the source changes, and only when the value differs.
 */
import Binding

final class User: ObservableModel {
  let observation = ObservationStorage()
  @Observed var name = ""
}

final class Label: BindingReceiver {
  var text: String? { didSet { print("label:", text ?? "nil") } }
}

let user = User()
let label = Label()

example("Bind, transform, unbind") {
  label.bind(\.text, to: user, \.name) { "Hello, \($0)" }
  user.name = "Ada"
  user.name = "Ada"  // equal: the label is not set again
  label.unbind(\.text)
  user.name = "Grace"  // no longer bound
}

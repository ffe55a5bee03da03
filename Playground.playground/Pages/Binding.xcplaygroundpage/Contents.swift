/*:
 # Binding

 Any class can receive bindings by adopting `BindingReceiver` in one line. A binding sets the
 property at once, then again whenever the source changes, and only when the value differs.
 It holds neither side: it ends when either is deallocated, when the source announces its
 deletion (the receiver keeps its last value), or on `unbind`. Binding a property to itself
 traps with a message: it could only set the property from its own value.

 Each example below makes its own objects, so nothing it binds prints into the next one.
 */
import Binding

final class User: ObservableModel {
  let observation = ObservationStorage()
  @Observed var name = ""
  @Observed var age = 0
}

final class Label: BindingReceiver {
  let id: String
  var text: String? { didSet { print("\(id):", text ?? "nil") } }
  init(_ id: String) { self.id = id }
}

example("Bind: set now, then on every change that differs") {
  let user = User()
  user.name = "Ada"
  let label = Label("label")
  label.bind(\.text, to: user, \.name)  // a String? receiver of a String source
  user.name = "Ada"  // equal: the label is not set again
  user.name = "Grace"
}

example("Through a transform; binding the same property again replaces the binding") {
  let user = User()
  let label = Label("greeting")
  label.bind(\.text, to: user, \.name) { "Hello, \($0)" }
  user.name = "Ada"
  label.bind(\.text, to: user, \.age) { "\($0) years" }  // replaces the name binding
  user.name = "Grace"  // no longer bound
  user.age = 36
}

example("Coalesced: once per transaction, with the last value") {
  let user = User()
  let everyWrite = Label("every write")
  let coalesced = Label("coalesced")
  everyWrite.bind(\.text, to: user, \.age) { "\($0)" }
  coalesced.bind(\.text, to: user, \.age, options: .coalesced) { "\($0)" }
  print("-- the block begins")
  coalesce {
    user.age = 4
    user.age = 5
    user.age = 6
  }
  print("-- the block ended")
}

example("Two ways: a change of either side reaches the other, and the pair settles") {
  let form = User()
  let user = User()
  user.name = "Ada"
  form.bind(\.name, twoWayTo: user, \.name)
  print("form:", form.name)
  form.name = "Ada Lovelace"
  print("user:", user.name)
  user.name = "Grace"
  print("form:", form.name)
}

example("A binding ends when its source announces its deletion; the receiver keeps its value") {
  let label = Label("status")
  do {
    let user = User()
    label.bind(\.text, to: user, \.name)
    user.name = "online"
    user.announceDeletion()  // the binding ends; the label keeps its value
    user.name = "offline"  // not delivered
  }
  print("bound key paths:", label.boundKeyPaths.count)
}

/// A model reference, or a value holding one, that the tracker passes from the thread that
/// changed a model to the context that delivers the event.
///
/// `@unchecked Sendable` because the tracker only stores and forwards the value (it never reads
/// or writes the model through it), and sharing a model between threads is governed by the
/// model's own documented threading contract (see `ObservableModel`), which the user opted into
/// by tracking it.
struct _Handoff<Value>: @unchecked Sendable {
  var value: Value

  init(_ value: Value) { self.value = value }
}

import Binding
import Observation
import OpenCombine

/// The observed model: three properties, as a typical record.
final class Observed3: ObservableModel {
  let observation = ObservationStorage()
  @Observed var name = ""
  @Observed var age = 0
  @Observed var score = 0.0
}

/// The same class with plain stored properties.
final class Plain3 {
  var name = ""
  var age = 0
  var score = 0.0
}

/// Swift Observation's version.
@Observable final class SwiftObservable3 {
  var name = ""
  var age = 0
  var score = 0.0
}

/// A hand-written `didSet` calling one stored closure with (old, new).
final class DidSet3 {
  var onAge: (Int, Int) -> Void = { _, _ in }
  var name = ""
  var age = 0 { didSet { onAge(oldValue, age) } }
  var score = 0.0
}

/// OpenCombine's `@Published`.
final class Published3 {
  @Published var name = ""
  @Published var age = 0
  @Published var score = 0.0
}

/// A target object receiving changes.
final class Sink {
  var total = 0
}

/// Returns a closure the optimiser cannot see through.
@inline(never)
func opaqueAdder(_ sink: Sink) -> (Int, Int) -> Void {
  { old, new in sink.total &+= new &- old }
}

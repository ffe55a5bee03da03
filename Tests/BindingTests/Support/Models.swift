import Binding

final class Address: ObservableModel {
  let observation = ObservationStorage()
  @Observed var city: String
  @Observed var street = ""

  init(city: String) { self.city = city }
}

final class User: ObservableModel {
  let observation = ObservationStorage()
  @Observed var name = ""
  @Observed var age = 0
  @Observed var address: Address?
  var plain = 0
  var greeting: String { "Hello, \(name)" }

  init(name: String = "") { self.name = name }
}

/// A plain class that records what it receives.
final class Recorder<Value> {
  var values: [Value] = []
}

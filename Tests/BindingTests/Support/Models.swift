import Binding
import TestSupport

/// A model read through a nested path (`\User.address?.city`).
final class Address: ObservableModel {
  let observation = ObservationStorage()
  @Observed var city: String
  @Observed var street = ""
  let lease: LifetimeTracker.Lease?

  init(city: String, street: String = "", tracker: LifetimeTracker? = nil) {
    self.city = city
    self.street = street
    self.lease = tracker?.lease()
  }
}

/// A value that is deliberately not `Equatable`.
struct Blob {
  var number: Int
}

/// The main fixture model.
final class User: ObservableModel {
  let observation = ObservationStorage()
  @Observed var name = ""
  @Observed var nickname = ""
  @Observed var useNickname = false
  @Observed var age = 0
  @Observed var address: Address?
  @Observed var blob = Blob(number: 0)
  /// Tokens the model keeps for observations of itself.
  var tokens: [ObservationToken] = []
  /// Not observable: reading only this is a misuse.
  var plain = 0
  let lease: LifetimeTracker.Lease?

  /// Computed: observable through `name`.
  var greeting: String { "Hello, \(name)" }
  /// Computed through another model.
  var cityLabel: String { address?.city ?? "nowhere" }
  /// Computed with a condition: reads `nickname` only once `useNickname` is set.
  var displayName: String { useNickname ? nickname : name }
  /// Computed, reads nothing observable.
  var constant: Int { 42 }

  init(name: String = "", tracker: LifetimeTracker? = nil) {
    self.name = name
    self.lease = tracker?.lease()
  }
}

/// A base class, to show that models need no particular superclass.
class Document {
  var identifier = 7
}

/// A model that inherits from an unrelated class.
final class Note: Document, ObservableModel {
  let observation = ObservationStorage()
  @Observed var text = ""
}

/// A plain target that logs what it hears.
final class Probe {
  var log: [String] = []
  var refreshCount = 0
  var closeCount = 0
  var tokens: [ObservationToken] = []
  let lease: LifetimeTracker.Lease?

  init(tracker: LifetimeTracker? = nil) { self.lease = tracker?.lease() }

  func nameChanged(_ change: KeyPathChange<User, String>) {
    log.append("\(change.oldValue)>\(change.newValue)")
  }

  func ageChanged(_ change: KeyPathChange<User, Int>) {
    log.append("age:\(change.oldValue)>\(change.newValue)")
  }

  func refresh() { refreshCount += 1 }

  func close() { closeCount += 1 }
}

/// A plain class made a binding receiver in one line (below); counts its setter calls.
final class TextField {
  var text = "" { didSet { textSets += 1 } }
  var optionalText: String? { didSet { optionalTextSets += 1 } }
  var length = 0 { didSet { lengthSets += 1 } }
  var blob = Blob(number: -1) { didSet { blobSets += 1 } }
  var textSets = 0
  var optionalTextSets = 0
  var lengthSets = 0
  var blobSets = 0
  let lease: LifetimeTracker.Lease?

  init(tracker: LifetimeTracker? = nil) { self.lease = tracker?.lease() }
}

extension TextField: BindingReceiver {}

/// A plain class that records what it receives.
final class Recorder<Value> {
  var values: [Value] = []
}

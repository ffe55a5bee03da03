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

/// The least a target registration must do, written by hand: a `didSet` that loads a weakly
/// held target and hands it a change value holding the object, the key path, and the old and
/// new values (what `KeyPathChange` holds), through a stored closure.
final class WeakTargetDidSet3 {
  struct Change {
    let object: WeakTargetDidSet3
    let keyPath: KeyPath<WeakTargetDidSet3, Int>
    let oldValue: Int
    let newValue: Int
  }
  weak var target: Sink?
  var action: (Sink, Change) -> Void = { _, _ in }
  /// Stored, as a registration stores it (a literal here would be built on every change).
  let agePath: KeyPath<WeakTargetDidSet3, Int> = \.age
  var name = ""
  var age = 0 {
    didSet {
      guard let target else { return }
      action(target, Change(object: self, keyPath: agePath, oldValue: oldValue, newValue: age))
    }
  }
  var score = 0.0
}

/// The floor line with ten targets: the same `didSet`, each weakly held target loaded and
/// handed its own change value.
final class WeakTargetsDidSet3 {
  typealias Change = WeakTargetDidSet3.Change
  var targets: [WeakSink] = []
  var action: (Sink, Change) -> Void = { _, _ in }
  /// The change value's object; the floor's model stands in (same layout of the value).
  let stand = WeakTargetDidSet3()
  let agePath: KeyPath<WeakTargetDidSet3, Int> = \.age
  var name = ""
  var age = 0 {
    didSet {
      for box in targets {
        guard let target = box.sink else { continue }
        action(target, Change(object: stand, keyPath: agePath, oldValue: oldValue, newValue: age))
      }
    }
  }
  var score = 0.0
}

/// A weakly held sink.
final class WeakSink {
  weak var sink: Sink?
  init(_ sink: Sink) { self.sink = sink }
}

/// A model read through a nested path (`\Person3.address?.city`).
final class Person3: ObservableModel {
  let observation = ObservationStorage()
  @Observed var name = ""
  @Observed var address: Address3?
}

/// The intermediate object of the nested path.
final class Address3: ObservableModel {
  let observation = ObservationStorage()
  @Observed var city = 0
}

/// A binding's receiver.
final class Gauge: BindingReceiver {
  var value = 0
}

/// An action for `WeakTargetDidSet3`, made where the optimiser cannot see it.
@inline(never)
func opaqueTargetAction() -> (Sink, WeakTargetDidSet3.Change) -> Void {
  { sink, change in sink.total &+= change.newValue &- change.oldValue }
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

// MARK: Relation models

/// The element of the relation benchmarks: an album sorted by `year`, filtered by `isLive`,
/// with `title` as the observed attribute. Hashable by identity.
final class Album: ObservableModel, Hashable {
  let observation = ObservationStorage()
  @Observed var year: Int
  @Observed var title = ""
  @Observed var isLive: Bool

  init(year: Int, isLive: Bool) {
    self.year = year
    self.isLive = isLive
  }

  static func == (lhs: Album, rhs: Album) -> Bool { lhs === rhs }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The owner of the relation.
final class Artist: ObservableModel {
  let observation = ObservationStorage()
  @Observed var albums: [Album]

  init(_ albums: [Album]) { self.albums = albums }
}

/// A small deterministic generator (SplitMix64), so that every run measures the same data.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

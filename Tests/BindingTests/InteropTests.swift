import Binding
import Foundation
import Observation
import Synchronization
import Testing

/// `@Observed` is transparent to `Codable`, `Equatable` and `Hashable`; `ObservationBridging`
/// reports to Swift Observation.
@Suite struct InteropTests {}

/// A model with `@Observed` properties and explicit coding keys.
private final class ObservedProfile: ObservableModel, Codable {
  let observation = ObservationStorage()
  @Observed var name = ""
  @Observed var age = 0
  @Observed var tags: [String] = []
  @Observed var nickname: String? = "A"
  @Observed var scores: [String: Double] = [:]

  enum CodingKeys: String, CodingKey { case name, age, tags, nickname, scores }

  init() {}
}

/// The same model with plain stored properties.
private final class PlainProfile: Codable {
  var name = ""
  var age = 0
  var tags: [String] = []
  var nickname: String? = "A"
  var scores: [String: Double] = [:]

  init() {}
}

private func json<T: Encodable>(_ value: T) throws -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// A model that Swift Observation sees.
private final class BridgedUser: ObservationBridging {
  let observation = ObservationStorage()
  @Observed var name = ""
  @Observed var age = 0
}

extension InteropTests {
  @Test func encodesExactlyLikePlainProperties() throws {
    let observed = ObservedProfile()
    let plain = PlainProfile()
    observed.name = "Ada"
    plain.name = "Ada"
    observed.age = 36
    plain.age = 36
    observed.tags = ["math", "engines"]
    plain.tags = ["math", "engines"]
    observed.scores = ["logic": 9.5]
    plain.scores = ["logic": 9.5]
    #expect(try json(observed) == json(plain))
    #expect(try json(observed).contains("\"name\":\"Ada\""))
  }

  @Test func decodesWhatPlainPropertiesEncode() throws {
    let plain = PlainProfile()
    plain.name = "Grace"
    plain.age = 85
    plain.tags = ["cobol"]
    let data = try JSONEncoder().encode(plain)
    let decoded = try JSONDecoder().decode(ObservedProfile.self, from: data)
    #expect(decoded.name == "Grace")
    #expect(decoded.age == 85)
    #expect(decoded.tags == ["cobol"])
    #expect(decoded.nickname == "A")
    var names: [String] = []
    let token = decoded.observe(\.name) { names.append($0.newValue) }
    decoded.name = "Hopper"
    #expect(names == ["Hopper"])
    token.cancel()
  }

  @Test func observedModelsRoundTrip() throws {
    let original = ObservedProfile()
    original.name = "Hedy"
    original.nickname = "H"
    let copy = try JSONDecoder().decode(
      ObservedProfile.self, from: JSONEncoder().encode(original))
    #expect(try json(copy) == json(original))
  }

  @Test func wrapperIsEquatableAndHashableAsItsValue() {
    let three = Observed(wrappedValue: 3)
    #expect(three == Observed(wrappedValue: 3))
    #expect(three != Observed(wrappedValue: 4))
    #expect(three.hashValue == Observed(wrappedValue: 3).hashValue)
    #expect(three.hashValue == 3.hashValue)
    let set: Set = [
      Observed(wrappedValue: "a"), Observed(wrappedValue: "a"), Observed(wrappedValue: "b"),
    ]
    #expect(set.count == 2)
  }

  @Test func wrapperEncodesAsTheBareValue() throws {
    #expect(try json(Observed(wrappedValue: [1, 2])) == json([1, 2]))
    let decoded = try JSONDecoder().decode(Observed<String>.self, from: Data("\"x\"".utf8))
    #expect(decoded == Observed(wrappedValue: "x"))
  }
}

// MARK: - Swift Observation

extension InteropTests {
  @Test func withObservationTrackingSeesObservedChanges() {
    let user = BridgedUser()
    let fired = AtomicCounter()
    withObservationTracking {
      _ = user.name
    } onChange: {
      fired.increment()
    }
    #expect(fired.value == 0)
    user.name = "Ada"
    #expect(fired.value == 1)
    user.name = "Grace"  // Observation's tracking is one-shot
    #expect(fired.value == 1)
  }

  @Test func withObservationTrackingIgnoresPropertiesNotRead() {
    let user = BridgedUser()
    let fired = AtomicCounter()
    withObservationTracking {
      _ = user.name
    } onChange: {
      fired.increment()
    }
    user.age = 3
    #expect(fired.value == 0)
    user.name = "Ada"
    #expect(fired.value == 1)
  }

  @Test func bridgedModelsStillDeliverToTargetsAndBindings() {
    let user = BridgedUser()
    let probe = Probe()
    var names: [String] = []
    user.addTarget(probe, for: \.name) { _, change in names.append(change.newValue) }
    let field = TextField()
    field.bind(\.length, to: user, \.age)
    let fired = AtomicCounter()
    withObservationTracking {
      _ = user.age
    } onChange: {
      fired.increment()
    }
    user.name = "Ada"
    user.age = 7
    #expect(names == ["Ada"])
    #expect(field.length == 7)
    #expect(fired.value == 1)
  }
}

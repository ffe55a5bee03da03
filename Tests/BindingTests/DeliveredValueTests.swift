import Binding
import Testing

/// The value a change carries, on the paths where a faster delivery could hand over the wrong
/// one (issue 12 tried taking the setter's value for registrations of one property, and reading
/// through a specialised closure): computed properties that read one property, writes made by
/// earlier observers during the delivery, in-place mutation, coalescing and `.everySet`.
@Suite struct DeliveredValueTests {
  final class Profile: ObservableModel {
    let observation = ObservationStorage()
    @Observed var name = ""
    @Observed var tags: [String] = []
    /// Computed from `name` alone: the same property read, another value.
    var greeting: String { "Hello, \(name)" }
    /// Computed from `name` alone, with the same type and often the same value.
    var trimmed: String { name.count > 3 ? String(name.prefix(3)) : name }
  }

  /// Promise: a computed property that reads one property is delivered its own value, not the
  /// property's.
  @Test func aComputedPropertyReadingOnePropertyGetsItsOwnValue() {
    let profile = Profile()
    var greetings: [String] = []
    var trimmed: [String] = []
    let first = profile.observe(\.greeting) { greetings.append($0.newValue) }
    let second = profile.observe(\.trimmed) { trimmed.append("\($0.oldValue)→\($0.newValue)") }
    profile.name = "Ada"
    profile.name = "Ada Lovelace"
    profile.name = "Ada L."
    #expect(greetings == ["Hello, Ada", "Hello, Ada Lovelace", "Hello, Ada L."])
    // "Ada L." trims to "Ada", the value before: no change to deliver.
    #expect(trimmed == ["→Ada"])
    first.cancel()
    second.cancel()
  }

  /// Promise: when an earlier observer writes the property again during a delivery, later
  /// observers hear the newest value once, never the older value after it.
  @Test func aWriteByAnEarlierObserverReachesLaterObserversAsTheNewestValue() {
    let profile = Profile()
    var first: [String] = []
    var second: [String] = []
    let clamp = profile.observe(\.name) { change in
      first.append("\(change.oldValue)→\(change.newValue)")
      if change.newValue.count > 5 { profile.name = String(change.newValue.prefix(5)) }
    }
    let later = profile.observe(\.name) { change in
      second.append("\(change.oldValue)→\(change.newValue)")
    }
    profile.name = "Grace Hopper"
    #expect(profile.name == "Grace")
    #expect(first == ["→Grace Hopper", "Grace Hopper→Grace"])
    #expect(second == ["→Grace"])
    clamp.cancel()
    later.cancel()
  }

  /// Promise: an in-place mutation (`tags.append`) delivers the mutated value, and so does
  /// `.everySet` for a write of an equal value.
  @Test func inPlaceMutationsAndEqualWritesDeliverTheStoredValue() {
    let profile = Profile()
    var heard: [[String]] = []
    var sets: [String] = []
    let tags = profile.observe(\.tags) { heard.append($0.newValue) }
    let every = profile.observe(\.name, options: .everySet) { sets.append($0.newValue) }
    profile.tags.append("swift")
    profile.tags[0] += "!"
    profile.name = "x"
    profile.name = "x"
    #expect(heard == [["swift"], ["swift!"]])
    #expect(sets == ["x", "x"])
    tags.cancel()
    every.cancel()
  }

  /// Promise: a coalesced registration of one property hears the first old and the last new
  /// value once, whatever the setter handed over in between.
  @Test func coalescedDirectRegistrationsHearFirstOldAndLastNew() {
    let profile = Profile()
    profile.name = "a"
    var heard: [String] = []
    let token = profile.observe(\.name, options: .coalesced) {
      heard.append("\($0.oldValue)→\($0.newValue)")
    }
    coalesce {
      profile.name = "b"
      profile.name = "c"
    }
    #expect(heard == ["a→c"])
    token.cancel()
  }

  /// Promise: a key path passed as a variable (not a literal) works the same: registration
  /// evaluates the expression twice, and both give the same key path.
  @Test func aKeyPathInAVariableIsObservedLikeALiteral() {
    let profile = Profile()
    let path: KeyPath<Profile, String> = \.greeting
    var heard: [String] = []
    var keyPaths: [AnyKeyPath] = []
    let token = profile.observe(path) {
      heard.append($0.newValue)
      keyPaths.append($0.keyPath)
    }
    profile.name = "Ada"
    #expect(heard == ["Hello, Ada"])
    #expect(keyPaths == [path])
    token.cancel()
  }
}

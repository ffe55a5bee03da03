import Binding
import Testing

/// Programmer errors trap with a message (exit tests run in a child process).
@Suite struct MisuseTests {}

extension MisuseTests {
  @Test func observingAKeyPathThatReadsNoObservedPropertyTraps() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let user = User()
      _ = user.observe(\.plain) { _ in }
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(message.contains("User.plain"))
    #expect(message.contains("reads no @Observed property"))
  }

  @Test func addingATargetForAComputedPropertyThatReadsNothingTraps() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let user = User()
      let probe = Probe()
      user.addTarget(probe, for: \.constant) { _, _ in }
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(message.contains("of User reads no @Observed property"))
    // The key path is in the message as Swift describes it; for a computed property that is
    // `\User.<computed 0x… (Int)>`, since the runtime keeps no names of computed properties.
  }

  @Test func bindingToAKeyPathThatReadsNothingTraps() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let user = User()
      let field = TextField()
      field.bind(\.length, to: user, \.plain)
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(message.contains("User.plain"))
  }

  @Test func aCoalescingCycleThatNeverSettlesTraps() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let user = User()
      let probe = Probe()
      user.addTarget(probe, for: \.name, options: .coalesced) { _, change in
        change.object.name = change.newValue + "!"
      }
      coalesce { user.name = "a" }
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(message.contains("kept changing values for \(maximumCoalescingRounds) rounds"))
    #expect(message.contains("User.(name)"))
  }

  @Test func aCoalescingCycleBetweenTwoKeyPathsNamesBoth() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let user = User()
      let probe = Probe()
      user.addTarget(probe, for: \.name, options: .coalesced) { _, change in
        change.object.age += 1
      }
      user.addTarget(probe, for: \.age, options: .coalesced) { _, change in
        change.object.name += "!"
      }
      coalesce { user.name = "a" }
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(message.contains("kept changing values for \(maximumCoalescingRounds) rounds"))
    #expect(message.contains("User.("))
  }

  @Test func aRegistrationReadingSomethingObservableDoesNotTrap() {
    // The counterpart of the traps above: a computed path that reads one observed property.
    let user = User()
    let token = user.observe(\.greeting) { _ in }
    #expect(token.isActive)
  }
}

extension MisuseTests {
  /// A property bound to itself could only be set from its own value: it traps, with or
  /// without a transform.
  @Test(arguments: [false, true])
  func bindingAPropertyToItselfTraps(transformed: Bool) async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      [transformed] in
      let user = User()
      if transformed {
        user.bind(\.age, to: user, \.age) { $0 + 1 }
      } else {
        user.bind(\.age, to: user, \.age)
      }
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(
      message.contains("of a User to the same property of the same object"))
  }

  /// Another property of the same object is fine.
  @Test func bindingAnotherPropertyOfTheSameObjectWorks() {
    let user = User()
    user.bind(\.nickname, to: user, \.name)
    user.name = "Ada"
    #expect(user.nickname == "Ada")
  }
}

import Binding
import Foundation
import Testing

/// Tests of promises the library does not keep yet. They fail until the library is fixed; each
/// says what it expects and what happens instead.
@Suite struct KnownFailuresTests {}

// MARK: - Trap messages

extension KnownFailuresTests {
  /// Expected: the message names the computed key path (`constant`).
  /// Actual: it prints `\User.<computed 0x… (Int)>`, the runtime's description of a key path to
  /// a computed property.
  @Test func misuseMessageNamesAComputedKeyPath() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let user = User()
      _ = user.observe(\.constant) { _ in }
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(message.contains("constant"))
  }

  /// Expected: the cycle trap names the key path that kept changing (`name`).
  /// Actual: `still changing: \User.<computed 0x… (String)>` (an `@Observed` property is a
  /// computed property to the key-path runtime; the slot's reflected name is not used).
  @Test func coalescingCycleMessageNamesTheProperty() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let user = User()
      let probe = Probe()
      user.addTarget(probe, for: \.name, options: .coalesced) { _, change in
        change.object.name = change.newValue + "!"
      }
      coalesce { user.name = "a" }
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(message.contains("name"))
  }
}

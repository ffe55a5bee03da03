import Binding
import Foundation
import TestSupport
import Testing

/// Tests written against defects that review found (each comment says what used to happen);
/// they pass now and keep the defects from coming back.
@Suite struct RegressionTests {}

// MARK: - Trap messages

extension RegressionTests {
  /// A key path to a computed property has no name at run time on Linux (the runtime prints
  /// `\User.<computed 0x… (Int)>`), so the message names the root type, prints what the runtime
  /// gives for the key path, and says what is wrong.
  @Test func misuseMessageForAComputedKeyPathNamesTheRootType() async throws {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let user = User()
      _ = user.observe(\.constant) { _ in }
    }
    let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
    #expect(message.contains("of User reads no @Observed property"))
    #expect(message.contains("\\User."))
  }

  /// Promise: the cycle trap names the key path that kept changing (`name`).
  /// It used to give: `still changing: \User.<computed 0x… (String)>` (an `@Observed`
  /// property is a
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

// MARK: - Lifetime

/// design.md §4 Lifetime: "a registration retains neither side"; when the target dies "its
/// registrations are released (at the latest by the next change or registration on that
/// object)"; when the observed object dies "everything observing it ends".
///
/// Every key-path registration (`observe`, `addTarget`, `bind`, `changes(for:)`) is kept alive
/// forever by a reference cycle: `_KeyPathRecord._state` holds the `_Read`s of its last
/// evaluation, each `_Read` holds its `_SlotEntry`, and the entry's `fire` closure holds the
/// record. `cancel()` deactivates the entries but clears neither side, so the record, its slots
/// and its handler (with everything the handler captures) leak even after the observed object
/// is deallocated. (`observeEvents` registrations are released: they have no reads.)
extension RegressionTests {
  /// Promise: the handler's captures are released when the observed object dies
  /// (`tracker.live == 0`). It used to give: `tracker.live == 1`.
  @Test func keyPathRegistrationIsReleasedWithTheObservedObject() {
    let tracker = LifetimeTracker()
    var token: ObservationToken?
    do {
      let user = User()
      let payload = Probe(tracker: tracker)
      token = user.observe(\.age) { _ in payload.refresh() }
    }
    #expect(token?.isActive == false)
    #expect(tracker.live == 0)
  }

  /// Promise: a target registration's action (and its captures) is released when the observed
  /// object dies (`tracker.live == 0`). It used to give: `tracker.live == 1`.
  @Test func targetRegistrationIsReleasedWithTheObservedObject() {
    let tracker = LifetimeTracker()
    let target = Probe()
    do {
      let user = User()
      let payload = Probe(tracker: tracker)
      user.addTarget(target, for: \.name) { _, _ in payload.refresh() }
    }
    #expect(tracker.live == 0)
  }

  /// Promise: a cancelled token's handler is released once the object has changed and seen a
  /// new registration (`tracker.live == 0`). It used to give: `tracker.live == 1`.
  @Test func cancelledTokenReleasesItsHandler() {
    let tracker = LifetimeTracker()
    let user = User()
    do {
      let payload = Probe(tracker: tracker)
      let token = user.observe(\.name) { _ in payload.refresh() }
      token.cancel()
    }
    user.name = "a"
    let other = user.observe(\.age) { _ in }
    #expect(tracker.live == 0)
    other.cancel()
  }

  /// Promise: after the target died and the observed property changed once, the action's
  /// captures are released (`tracker.live == 0`). It used to give: `tracker.live == 1`.
  @Test func deadTargetRegistrationIsReleasedByTheNextChange() {
    let tracker = LifetimeTracker()
    let user = User()
    do {
      let payload = Probe(tracker: tracker)
      let target = Probe()
      user.addTarget(target, for: \.name) { _, _ in payload.refresh() }
    }
    user.name = "a"
    #expect(tracker.live == 0)
  }

  /// Used to stay registered until a change reached it. Now the next registration on the object
  /// ends a registration whose target died (it no longer counts as the target's), and the entry
  /// it left on the observed property, with the closures it holds, goes at the next change of
  /// that property (entries are unlinked only by writers of their property, which the threading
  /// contract serialises).
  @Test func deadTargetRegistrationIsEndedByTheNextRegistration() {
    let tracker = LifetimeTracker()
    let user = User()
    do {
      let payload = Probe(tracker: tracker)
      let target = Probe()
      user.addTarget(target, for: \.name) { _, _ in payload.refresh() }
    }
    let token = user.observe(\.age) { _ in }
    user.name = "a"
    #expect(tracker.live == 0)
    token.cancel()
  }

  /// Promise: a binding's transform (and its captures) is released when the source dies
  /// (`tracker.live == 0`). It used to give: `tracker.live == 1`.
  @Test func bindingIsReleasedWithItsSource() {
    let tracker = LifetimeTracker()
    let field = TextField()
    do {
      let user = User()
      let payload = Probe(tracker: tracker)
      field.bind(\.text, to: user, \.name) { name in
        payload.refresh()
        return name
      }
    }
    #expect(tracker.live == 0)
  }
}

// MARK: - Deletion inside a coalesced block

extension RegressionTests {
  /// design.md §4 Deletion: "Everything observing it hears a deletion event"; Coalescing.swift
  /// documents "(deletion events first)".
  /// Promise: a `.coalesced` `observeEvents` registration hears `.deleted` when the model
  /// announces its deletion inside `coalesce { }`: `heard == ["deleted"]`.
  /// It used to give: `heard == []`: `announceDeletion()` enqueues the deletion in the open
  /// scope, then
  /// cancels the registration at once, and the flush skips inactive registrations.
  @Test func coalescedObserveEventsHearsADeletionInsideABlock() {
    let user = User()
    var heard: [String] = []
    let token = user.observeEvents(options: .coalesced) { event in
      switch event {
      case .updated: heard.append("updated")
      case .deleted: heard.append("deleted")
      }
    }
    coalesce { user.announceDeletion() }
    #expect(heard == ["deleted"])
    token.cancel()
  }

  /// Promise: deletion events come first in the flush: `["deleted", "updated"]`.
  /// It used to give: `["updated"]` (the deletion is lost, as above).
  @Test func coalescedDeletionEventsAreDeliveredFirst() {
    let kept = User()
    let deleted = User()
    var heard: [String] = []
    let first = kept.observeEvents(options: .coalesced) { event in
      if case .updated = event { heard.append("updated") }
    }
    let second = deleted.observeEvents(options: .coalesced) { event in
      if case .deleted = event { heard.append("deleted") }
    }
    coalesce {
      kept.age = 1
      deleted.announceDeletion()
    }
    #expect(heard == ["deleted", "updated"])
    first.cancel()
    second.cancel()
  }
}

// MARK: - Main-actor delivery on Linux

/// design.md §4: main-actor targets get main-actor delivery, "synchronous when the change
/// happens on the main thread". A change made on the main actor must be delivered before the
/// next line runs.
///
/// `_Mailbox.runOnMain` decides with `Thread.isMainThread`, which is `false` on the main actor
/// under `swift test` on Linux: there, async `main` calls `dispatch_main()`, and the main queue
/// (the main actor's executor) is drained by a dispatch thread, not the process's first thread.
/// So every main-actor delivery is queued with `DispatchQueue.main.async` and arrives later. (A
/// check of the main queue, e.g. a `DispatchSpecificKey` set on `DispatchQueue.main`, works on
/// both platforms.)
extension RegressionTests {
  /// Promise: `controller.title == "Ada"` right after `user.name = "Ada"`. It used to give: `""`.
  @MainActor
  @Test func mainActorTargetHearsSynchronouslyOnTheMainActor() {
    let user = User()
    let controller = ProfileViewController()
    user.addTarget(controller, for: \.name) { controller, change in
      controller.title = change.newValue
    }
    user.name = "Ada"
    #expect(controller.title == "Ada")
  }

  /// Promise: the method runs before the next line. It used to give: `controller.titles == []`.
  @MainActor
  @Test func mainActorMethodReferenceTargetHearsSynchronously() {
    let user = User()
    let controller = ProfileViewController()
    user.addTarget(controller, action: ProfileViewController.nameChanged, for: \.name)
    user.name = "Ada"
    #expect(controller.titles == ["Ada"])
  }

  /// Promise: `.initial` calls the method during registration: `refreshCount == 1`.
  /// It used to give: `0` (queued to the main queue).
  @MainActor
  @Test func mainActorInitialDeliveryIsSynchronous() {
    let user = User()
    let controller = ProfileViewController()
    user.addTarget(
      controller, action: ProfileViewController.refresh, for: [\.name], options: .initial)
    #expect(controller.refreshCount == 1)
  }

  /// Promise: `label.text == "Grace"` right after `user.name = "Grace"`. It used to give: `"Ada"`.
  @MainActor
  @Test func mainActorReceiverIsSetSynchronouslyOnTheMainActor() {
    let user = User(name: "Ada")
    let label = Label()
    label.bind(\.text, to: user, \.name)
    user.name = "Grace"
    #expect(label.text == "Grace")
  }
}

// MARK: - Codable transparency of optionals

/// A model whose optional property is `@Observed`, and the same model with a plain property.
private final class ObservedNickname: ObservableModel, Codable {
  let observation = ObservationStorage()
  @Observed var name = "Ada"
  @Observed var nickname: String?

  enum CodingKeys: String, CodingKey { case name, nickname }

  init() {}
}

private final class PlainNickname: Codable {
  var name = "Ada"
  var nickname: String?

  init() {}
}

/// design.md §4 Interop: "models are transparent to `Codable` (the wrapper encodes as its
/// value)". Synthesised `Codable` uses `encodeIfPresent`/`decodeIfPresent` for an `Optional`
/// property, but an `@Observed` optional is an `Observed<String?>`, which is not `Optional`,
/// so it takes `encode`/`decode` (the library would need `KeyedEncodingContainer` /
/// `KeyedDecodingContainer` overloads for `Observed<Wrapped?>`).
extension RegressionTests {
  /// Promise: `{"name":"Ada"}` like the plain model. It used to give:
  /// `{"name":"Ada","nickname":null}`.
  @Test func nilOptionalEncodesLikeAPlainProperty() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let observed = String(decoding: try encoder.encode(ObservedNickname()), as: UTF8.self)
    let plain = String(decoding: try encoder.encode(PlainNickname()), as: UTF8.self)
    #expect(observed == plain)
  }

  /// Promise: JSON without the optional's key decodes, with `nickname == nil`, as the plain
  /// model does. It used to give: `DecodingError.keyNotFound(CodingKeys.nickname, …)`.
  @Test func missingOptionalKeyDecodesLikeAPlainProperty() throws {
    let data = Data(#"{"name":"Grace"}"#.utf8)
    #expect(try JSONDecoder().decode(PlainNickname.self, from: data).nickname == nil)
    let decoded = try JSONDecoder().decode(ObservedNickname.self, from: data)
    #expect(decoded.name == "Grace")
    #expect(decoded.nickname == nil)
  }
}

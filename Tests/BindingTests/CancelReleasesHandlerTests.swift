import Binding
import TestSupport
import Testing

/// Issue 12: a cancelled registration lets go of its handler at once, as KVO, Combine and
/// Observation users expect. It used to keep the handler until the next write or registration
/// of a property it read: a handler that captured its model kept the model alive after
/// `cancel()` (the model's own slot held the handler), for good if the model was never written
/// again.
@Suite struct CancelReleasesHandlerTests {
  /// A receiver for the binding case (nonisolated, so the binding is synchronous).
  final class Caption: BindingReceiver {
    var text = ""
  }

  /// Promise: `cancel()` releases the closure (and what it captured) before it returns.
  @Test func cancelReleasesAnObserversClosure() {
    let tracker = LifetimeTracker()
    let user = User()
    let token = { [lease = tracker.lease()] in
      user.observe(\.name) { _ in withExtendedLifetime(lease) {} }
    }()
    user.name = "heard once"
    #expect(tracker.live == 1)
    token.cancel()
    #expect(tracker.live == 0)
    // Nothing was written after the cancel: the release did not wait for a write.
    #expect(user.name == "heard once")
  }

  /// Promise: `cancel()` and `removeTarget` release a registration's deletion callback
  /// (`onDeletion:`) at once too, with its change handler.
  @Test func cancelReleasesTheDeletionCallback() {
    let tracker = LifetimeTracker()
    let user = User()
    let probe = Probe()
    let token = { [lease = tracker.lease()] in
      user.observe(\.name, onDeletion: { withExtendedLifetime(lease) {} }) { _ in }
    }()
    do {
      let lease = tracker.lease()
      user.addTarget(probe, for: \.name, onDeletion: { _ in withExtendedLifetime(lease) {} }) {
        _, _ in
      }
    }
    #expect(tracker.live == 2)
    token.cancel()
    #expect(tracker.live == 1)
    user.removeTarget(probe)
    #expect(tracker.live == 0)
  }

  /// Promise: a model whose observer's closure captured it is deallocated once the token is
  /// cancelled and the model is dropped, without another write.
  @Test func aModelCapturedByItsObserverDiesAfterCancel() {
    weak var weakUser: User?
    var heard = 0
    do {
      let user = User()
      weakUser = user
      let token = user.observe(\.age) { _ in heard += user.age }
      user.age = 2
      token.cancel()
    }
    #expect(heard == 2)
    #expect(weakUser == nil)
  }

  /// Promise: `removeTarget` releases the target's action at once; `unbind` releases a
  /// binding's transform at once; cancelling an "any property" observation releases its
  /// handler at once.
  @Test func removeTargetUnbindAndEventCancelRelease() {
    let tracker = LifetimeTracker()
    let user = User()
    let probe = Probe()
    let caption = Caption()
    do {
      let lease = tracker.lease()
      user.addTarget(probe, for: \.name) { _, _ in withExtendedLifetime(lease) {} }
    }
    do {
      let lease = tracker.lease()
      caption.bind(\.text, to: user, \.name) { name in
        withExtendedLifetime(lease) { name.uppercased() }
      }
    }
    let events = { [lease = tracker.lease()] in
      user.observeEvents { _ in withExtendedLifetime(lease) {} }
    }()
    user.name = "ada"
    #expect(caption.text == "ADA")
    #expect(tracker.live == 3)
    user.removeTarget(probe, for: \.name)
    #expect(tracker.live == 2)
    caption.unbind(\.text)
    #expect(tracker.live == 1)
    events.cancel()
    #expect(tracker.live == 0)
  }

  /// Promise: a handler that cancels its own token while it runs finishes its call, and is
  /// released right after it returns; a later write calls nothing.
  @Test func aHandlerCancellingItselfIsReleasedAfterItReturns() {
    let tracker = LifetimeTracker()
    let user = User()
    var calls = 0
    var token: ObservationToken?
    token = { [lease = tracker.lease()] in
      user.observe(\.age) { _ in
        withExtendedLifetime(lease) { calls += 1 }
        token?.cancel()
        // Still running: the closure and what it captured are alive until it returns.
        withExtendedLifetime(lease) { calls += 10 }
      }
    }()
    user.age = 1
    #expect(calls == 11)
    #expect(tracker.live == 0)
    user.age = 2
    #expect(calls == 11)
    _ = token
  }
}

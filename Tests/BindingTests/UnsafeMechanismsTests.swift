import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Binding

/// The counting of the references Binding holds by hand (`UnretainedReferences.swift`): each
/// type keeps exactly the references it says, so an object dies exactly when its last counted
/// reference goes.
@Suite(.serialized) struct UnretainedReferencesTests {
  final class Object {
    static let live = Atomic<Int>(0)
    init() { Self.live.add(1, ordering: .relaxed) }
    deinit { Self.live.subtract(1, ordering: .relaxed) }
  }

  /// A `_Retained` keeps its object alive until `release()`, and no longer.
  @Test func aRetainedReferenceKeepsItsObjectUntilReleased() {
    weak var weakObject: Object?
    let retained: _Retained<Object>
    do {
      let object = Object()
      weakObject = object
      retained = _Retained(object)
    }
    #expect(weakObject != nil)
    #expect(retained.with { $0 === weakObject })
    retained.release()
    #expect(weakObject == nil)
  }

  /// `take()` moves the reference into a counted one: the object dies with that one.
  @Test func takingARetainedReferenceMovesIt() {
    weak var weakObject: Object?
    var taken: Object?
    do {
      let object = Object()
      weakObject = object
      taken = _Retained(object).take()
    }
    #expect(weakObject != nil)
    taken = nil
    #expect(weakObject == nil)
    _ = taken
  }

  /// An `_Unretained` reference keeps nothing alive.
  @Test func anUnretainedReferenceKeepsNothing() {
    weak var weakObject: Object?
    var object: Object? = Object()
    weakObject = object
    let unretained = _Unretained(object!)  // just made
    #expect(unretained.with { $0 === weakObject })
    #expect(_Unretained<Object>(address: unretained.address).isSame(as: unretained))
    object = nil
    #expect(weakObject == nil)
  }

  /// A claim without a retain and its hand-back leave the count as it was: the object dies when
  /// its last counted reference goes, whatever was built from the claim in between.
  @Test func aClaimAndItsHandBackAreBalanced() {
    weak var weakObject: Object?
    var object: Object? = Object()
    weakObject = object
    for _ in 0..<1_000 {
      let claimed = _claimUncounted(object!)  // alive: `object` holds it
      let kept = [claimed]  // a copy retains
      _handBack(kept[0])
    }
    object = nil
    #expect(weakObject == nil)
  }

  /// Threads racing to set a `_OnceReference` all get the one object stored first; the others'
  /// objects are released at once, and `release()` releases the stored one.
  @Test func racingSettersOfAOnceReferenceAgreeOnOne() async {
    let before = Object.live.load(ordering: .relaxed)
    final class Holder: Sendable {
      let reference = _OnceReference<Object>()
      deinit { reference.release() }
    }
    for _ in 0..<20 {
      let holder = Holder()
      let addresses = Mutex<Set<UInt>>([])
      DispatchQueue.concurrentPerform(iterations: 8) { _ in
        let address = holder.reference.get(orSet: { Object() }).address
        addresses.withLock { _ = $0.insert(address) }
      }
      #expect(addresses.withLock { $0.count } == 1)
      #expect(holder.reference.current?.address == addresses.withLock { $0.first })
    }
    // A setter that loses deterministically: another one stores first while it makes its own.
    do {
      let holder = Holder()
      let inner = Mutex<UInt>(0)
      let outer = holder.reference.get(orSet: {
        inner.withLock { $0 = holder.reference.get(orSet: { Object() }).address }
        return Object()
      })
      #expect(outer.address == inner.withLock { $0 })
    }
    #expect(Object.live.load(ordering: .relaxed) == before)
  }
}

/// The slot directory of an object (`PropertySlot.swift`): every slot listed is found by its
/// number, from any thread, while the directory grows.
@Suite struct SlotDirectoryTests {
  final class Wide: ObservableModel {
    let observation = ObservationStorage()
    @Observed var a = 0
    @Observed var b = 0
    @Observed var c = 0
    @Observed var d = 0
    @Observed var e = 0
    @Observed var f = 0
    @Observed var g = 0
    @Observed var h = 0
    @Observed var i = 0
  }

  /// Each slot is found by its number, a number no slot of the object has is not, and the
  /// directory keeps finding them as it grows past its first lists.
  @Test func everyListedSlotIsFoundByItsNumber() {
    let model = Wide()
    let state = model.observation.state(of: model)
    var slots: [_AnySlot] = []
    for _ in 0..<40 {
      let slot = _AnySlot(owner: model)
      state.adopt(slot: slot)
      slots.append(slot)
      for listed in slots {
        #expect(state.slot(named: listed.id)?.with { $0 === listed } == true)
      }
    }
    let stranger = _AnySlot(owner: Wide())
    #expect(state.slot(named: stranger.id) == nil)
    #expect(state.slot(named: 0) == nil)
  }

  /// Readers on other threads, without the lock, find every slot whose adoption finished
  /// before they looked, while the directory grows (run under ThreadSanitizer in CI).
  @Test func readersFindSlotsWhileTheDirectoryGrows() {
    let model = Wide()
    let state = model.observation.state(of: model)
    // Shared on purpose: what is under test is the directory's reads racing its growth.
    let shared = _Transfer((model, state))
    let adopted = Mutex<[UInt64]>([])
    let misses = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: 4) { worker in
      if worker == 0 {
        let (model, state) = shared.value
        for _ in 0..<200 {
          let slot = _AnySlot(owner: model)
          state.adopt(slot: slot)
          adopted.withLock { $0.append(slot.id) }
        }
      } else {
        let state = shared.value.1
        for _ in 0..<400 {
          for id in adopted.withLock({ $0 }) where state.slot(named: id) == nil {
            misses.add(1, ordering: .relaxed)
          }
        }
      }
    }
    #expect(adopted.withLock { $0.count } == 200)
    #expect(misses.load(ordering: .relaxed) == 0)
  }
}

/// Thread-confined state (`ThreadState.swift`): each thread has its own, and what a thread
/// links into it is unlinked before the linking frame returns.
@Suite struct ThreadConfinementTests {
  /// Each thread gets a state of its own, the same one for as long as it runs.
  @Test func eachThreadHasItsOwnState() {
    let keys = Mutex<[Int: Set<UInt>]>([:])
    DispatchQueue.concurrentPerform(iterations: 4) { worker in
      for _ in 0..<10 {
        let key = _ThreadState.currentKey
        keys.withLock { _ = $0[worker, default: []].insert(key) }
      }
    }
    let perWorker = keys.withLock { $0 }
    #expect(perWorker.values.allSatisfy { $0.count == 1 })
    #expect(_ThreadState.currentKey == _ThreadState.currentKey)
  }

  final class Field: BindingReceiver {
    var text = ""
  }

  /// A binding's application is linked from the thread's state only while it runs: after a
  /// binding that re-entered itself settles, nothing is linked.
  @Test func applicationsAreUnlinkedWhenTheirFrameReturns() {
    let user = User(name: "a")
    let field = Field()
    field.bind(\.text, to: user, \.name)
    // A clamp that writes the source again while the binding applies: the binding re-enters.
    let token = user.observe(\.name) { change in
      if change.newValue.count > 3 { user.name = String(change.newValue.prefix(3)) }
    }
    user.name = "abcdef"
    #expect(field.text == "abc")
    #expect(_ThreadState.current.applying == nil)
    token.cancel()
  }

  /// A coalescing block open on one thread neither defers nor joins a write on another.
  @Test func aScopeBelongsToItsThread() {
    let user = User()
    let heard = Mutex<[String]>([])
    let token = user.observe(\.age, options: .coalesced, delivery: .synchronous) { change in
      heard.withLock { $0.append("age \(change.newValue)") }
    }
    let other = User()
    let otherToken = other.observe(\.age, options: .coalesced, delivery: .synchronous) { change in
      heard.withLock { $0.append("other \(change.newValue)") }
    }
    coalesce {
      user.age = 1
      let done = DispatchSemaphore(value: 0)
      let shared = _Transfer(other)  // written by one thread at a time: this one waits
      Thread.detachNewThread {
        shared.value.age = 5
        done.signal()
      }
      done.wait()
      #expect(heard.withLock { $0 } == ["other 5"])
      user.age = 2
    }
    #expect(heard.withLock { $0 } == ["other 5", "age 2"])
    token.cancel()
    otherToken.cancel()
  }
}

/// An object's observation word (`StateWord.swift`): a lone watch's reference is released
/// exactly once, by whoever takes it out of the word.
@Suite struct StateWordTests {
  final class Receiver: _WatchReceiver {
    let sink = _WatchSink()
    init() { sink.attach(self) }
    func _watchFired(_ id: ObjectIdentifier, elementDeleted: Bool) {}
  }

  /// The object's `deinit` releases the sink its word holds.
  @Test func aLoneWatchIsReleasedWithItsObject() throws {
    weak var weakSink: _WatchSink?
    do {
      let receiver = Receiver()
      weakSink = receiver.sink
      var user: User? = User()
      let handle = _watch(user!, sink: receiver.sink, replacing: nil) { _ = user!.name }  // alive
      #expect(handle?.isSame(as: .lone) == true)
      #expect(user!.observation._state.load(ordering: .relaxed) & _loneWatchTag != 0)  // alive
      user = nil
    }
    #expect(weakSink == nil)
  }

  /// A state that takes the lone watch over holds the sink through its watch; ending the watch
  /// and the object releases it; the word then holds the state, untagged.
  @Test func aStateTakesTheLoneWatchOver() throws {
    weak var weakSink: _WatchSink?
    do {
      let receiver = Receiver()
      weakSink = receiver.sink
      let user = User()
      let handle = try #require(_watch(user, sink: receiver.sink, replacing: nil) { _ = user.name })
      let token = user.observe(\.name) { _ in }
      let word = user.observation._state.load(ordering: .relaxed)
      #expect(word & _loneWatchTag == 0)
      #expect(_modelState(inWord: word)?.with { $0 === user.observation.existing } == true)
      handle.end(of: user, sink: receiver.sink)
      token.cancel()
    }
    #expect(weakSink == nil)
  }
}

import Testing

@testable import Binding

/// Issue 13, item 8: `@Observed` storage copied into another object (`_name = other._name`)
/// must carry the value and nothing else. It used to carry the original object's observation
/// slot too: the copy's writes reached the original's observers, and once the original was
/// released the copy held a dangling pointer (AddressSanitizer: heap-use-after-free in
/// `_AnySlot.append`).
@Suite struct CopiedWrapperTests {
  final class Note: ObservableModel {
    let observation = ObservationStorage()
    @Observed var text: String
    @Observed var revision = 0

    init(text: String) { self.text = text }

    /// Copies the storage of every property, as a hand-written copy initialiser would.
    init(copying other: Note) {
      _text = other._text
      _revision = other._revision
    }
  }

  /// Promise: the copy starts with the original's values and shares no observers with it, in
  /// either direction.
  @Test func aCopyAndItsOriginalHaveSeparateObservers() {
    let original = Note(text: "draft")
    var heardOnOriginal: [String] = []
    let originalToken = original.observe(\.text, options: .everySet) {
      heardOnOriginal.append($0.newValue)
    }
    let copy = Note(copying: original)
    #expect(copy.text == "draft")
    var heardOnCopy: [String] = []
    let copyToken = copy.observe(\.text, options: .everySet) { heardOnCopy.append($0.newValue) }

    copy.text = "copy edit"
    original.text = "original edit"
    copy.text = "copy edit 2"

    #expect(heardOnOriginal == ["original edit"])
    #expect(heardOnCopy == ["copy edit", "copy edit 2"])
    #expect(original.text == "original edit")
    originalToken.cancel()
    copyToken.cancel()
  }

  /// Promise: releasing the original leaves the copy whole: it can be observed, written and
  /// observed again (this is where the dangling slot pointer was dereferenced).
  @Test func aCopyOutlivesItsOriginal() {
    var original: Note? = Note(text: "draft")
    var originalHeard = 0
    let originalToken = original?.observe(\.text) { _ in originalHeard += 1 }
    original?.text = "observed"
    #expect(originalHeard == 1)
    // Strictly a copy of an object with an observed property (its slot exists now).
    let copy = Note(copying: original!)  // just made above
    weak let released = original
    original = nil
    originalToken?.cancel()
    #expect(released == nil)

    var heard: [String] = []
    let first = copy.observe(\.text) { heard.append($0.newValue) }
    let second = copy.observe(\.revision) { heard.append("revision \($0.newValue)") }
    copy.text = "after"
    copy.revision = 1
    let third = copy.observe(\.text) { heard.append("third \($0.newValue)") }
    copy.text = "again"
    #expect(heard == ["after", "revision 1", "again", "third again"])
    first.cancel()
    second.cancel()
    third.cancel()
  }

  /// Promise: an "any property" registration on the copy hears the copy's writes, even when the
  /// copied storage still refers to the original's property.
  @Test func anyPropertyObserverOfACopyHearsItsWrites() {
    let original = Note(text: "draft")
    let originalToken = original.observe(\.text) { _ in }
    let copy = Note(copying: original)
    var events = 0
    let token = copy.observeEvents { _ in events += 1 }
    copy.text = "edit"
    #expect(events == 1)
    token.cancel()
    originalToken.cancel()
  }
}

/// Storage that names a slot of a freed object: what a copy from that object holds once it is
/// gone, when this object's new slots may reuse the freed slot's memory (the review of item 8
/// found that an address alone was fooled by it; a stamp in the address's top 16 bits then
/// truncated pointers that use those bits, so storage now names slots by a number that is
/// never reused, `_SlotID`).
@Suite struct CopiedWrapperReuseTests {
  final class Pair: ObservableModel {
    let observation = ObservationStorage()
    @Observed var x = 0
    @Observed var y = 0

    /// What the storage of `x` and `y` holds to name their slots.
    var xSlot: UInt64 {
      get { _x._slot }
      set { _x._slot = newValue }
    }
    var ySlot: UInt64 {
      get { _y._slot }
      set { _y._slot = newValue }
    }
  }

  /// The number of `pair.x`'s slot, made by observing it once.
  static func slotOfX(_ pair: Pair) -> UInt64 {
    pair.observe(\.x) { _ in }.cancel()
    return pair.xSlot
  }

  /// Invariant of `_SlotID`: no two slots ever get the same number, also when a slot reuses
  /// the memory of a freed one (which allocators do at once for an object of the same size).
  @Test func slotNumbersAreNeverReused() {
    var seen: Set<UInt64> = []
    for _ in 0..<200 {
      let pair = Pair()
      let id = Self.slotOfX(pair)
      #expect(id != 0)
      #expect(seen.insert(id).inserted)
    }
  }

  /// Promise: a write of `y` whose storage names a slot of a freed object reaches neither `x`'s
  /// observers nor a crash, whichever slot of this object reuses the freed slot's memory;
  /// `y`'s own observers hear later writes.
  @Test func aStaleReferenceToAFreedSlotIsNotFollowed() {
    for _ in 0..<50 {
      let stale = Self.slotOfX(Pair())  // the pair and its slot are freed here
      let pair = Pair()
      var heardX = 0
      var heardY: [Int] = []
      let xToken = pair.observe(\.x, options: .everySet) { _ in heardX += 1 }
      pair.ySlot = stale
      pair.y = 1
      #expect(heardX == 0)
      let yToken = pair.observe(\.y) { heardY.append($0.newValue) }
      pair.y = 2
      pair.x = 5
      #expect(heardX == 1)
      #expect(heardY == [2])
      #expect(pair.ySlot != stale)
      xToken.cancel()
      yToken.cancel()
    }
  }

  /// Promise: storage that names a slot of another live object (copied from it) is not
  /// followed either: the other object's observers hear nothing of this object's writes.
  @Test func aReferenceToAnotherLiveObjectsSlotIsNotFollowed() {
    let other = Pair()
    var heardOther = 0
    let otherToken = other.observe(\.x, options: .everySet) { _ in heardOther += 1 }
    let pair = Pair()
    var heard = 0
    let token = pair.observe(\.y, options: .everySet) { _ in heard += 1 }
    pair.xSlot = other.xSlot
    pair.x = 1
    #expect(heardOther == 0)
    pair.y = 1
    #expect(heard == 1)
    otherToken.cancel()
    token.cancel()
  }
}

extension CopiedWrapperTests {
  /// Promise: the first write of copied storage makes the copy's own slot and stores it before
  /// the copy's observers run. An "any property" observer sees the property among the changes,
  /// and a key-path observer it registers during that write hears every later write. (The slot
  /// used to be stored after the observers ran, so they made a second slot that the storage
  /// never held: the property was missing from the first change, and the new observer heard
  /// nothing, ever.)
  @Test func observersOfTheFirstWriteOfCopiedStorageFindItsSlot() {
    let original = Note(text: "a")
    // The original's slot exists, so the copy's storage starts with a slot that is not its own.
    let originalToken = original.observe(\.text) { _ in }
    let copy = Note(copying: original)
    var textChanged: [Bool] = []
    var heard: [String] = []
    var inner: ObservationToken?
    let events = copy.observeEvents { event in
      if case .updated(_, let changes) = event { textChanged.append(changes.contains(\.text)) }
      if inner == nil { inner = copy.observe(\.text) { heard.append($0.newValue) } }
    }
    copy.text = "b"
    copy.text = "c"
    copy.text = "d"
    #expect(textChanged == [true, true, true])
    #expect(heard == ["c", "d"])
    events.cancel()
    inner?.cancel()
    originalToken.cancel()
  }
}

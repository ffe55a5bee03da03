import Binding

// What a relation controller keeps, who may touch it, and how that is checked.
//
// Shared, behind the controller's lock (`_State`): the pipeline (phase, queue, the owner's
// end), the members with their re-watch claims (`_RewatchMark`), the receivers, and the content
// (the index and the configuration). Every thread reads and writes it with the lock held, with
// one exception: the index and the configuration have one writer, the drainer (the one thread
// for which the pipeline's phase turned `draining`), which writes them with the lock held and
// reads them without, through `_state`. No other thread writes them, so those reads race with
// nothing.
//
// The drainer's own (`_Work`): the transaction being built. Only the drainer touches it, and
// drains are serialised by the pipeline (a drain begins after the previous one ended, through
// the lock), so it needs no lock.
//
// Debug builds check both rules: the thread that becomes the drainer records itself in
// `_Work` (`_beganDraining`), clears it under the lock in the same step that ends the drain
// (`_endDraining`), and every access through `_work` or `_state` traps on any other thread.
//
// No field here has run-time exclusivity checks (`@exclusivity(unchecked)`): those checks only
// catch two overlapping accesses on one thread, and the rules above leave none. Fields other
// than the index, the configuration and `_Work`'s are touched only under the lock, where no user
// code runs (removed handlers and closures are released after it). The drainer's accesses to the
// index, the configuration and `_Work` are short, and user code that runs on the drainer's
// thread meanwhile (comparators, key getters, a section key's `<`) cannot write them: the
// pipeline is draining, so a relation write it makes is queued, `reconfigure` queues, and a
// nested drain does not start (`userCodeThatWritesDuringTheDrainIsQueued` in
// FunctionsReadingTheControllerTests). This is the one file of the module with unchecked
// exclusivity; the benchmark's moves and limits rows pay for the checks otherwise.

extension RelationController {
  /// The controller's shared state (see the top of this file).
  @usableFromInline
  final class _State {
    @usableFromInline
    @exclusivity(unchecked)
    var index: _OrderedIndex<Element, SectionKey>
    @usableFromInline
    @exclusivity(unchecked)
    var config: Configuration
    @usableFromInline
    @exclusivity(unchecked)
    var members = _MemberTable()
    @usableFromInline
    @exclusivity(unchecked)
    var pipeline = _Pipeline<_Event>()
    @usableFromInline
    @exclusivity(unchecked)
    weak var delegate: (any RelationControllerDelegate<Element, SectionKey>)?
    @usableFromInline
    @exclusivity(unchecked)
    var handlers: [(id: UInt64, call: (RelationChangeSet<Element>) -> Void)] = []
    @usableFromInline
    @exclusivity(unchecked)
    var streams: [UInt64: AsyncStream<_Transfer<RelationChangeSet<Element>>>.Continuation] = [:]
    @usableFromInline
    @exclusivity(unchecked)
    var nextHandlerID: UInt64 = 0

    @inlinable
    init(index: consuming _OrderedIndex<Element, SectionKey>, config: Configuration) {
      self.index = index
      self.config = config
    }
  }

  /// The transaction the drainer builds (see the top of this file).
  @usableFromInline
  final class _Work {
    @inlinable
    init() {}

    #if DEBUG
      /// The drainer's thread (`_currentThreadKey()`), 0 between drains.
      @usableFromInline
      @exclusivity(unchecked)
      var _drainer: UInt = 0

      /// Traps unless the calling thread is the drainer.
      @inlinable
      func _checkDrainer() {
        precondition(
          _drainer != 0 && _drainer == _currentThreadKey(),
          "RelationController: the drainer's state was touched by a thread that is not draining "
            + "(an internal error: please report it)")
      }
    #endif

    /// Extra occurrences in the array (an element held twice counts once here).
    @usableFromInline
    @exclusivity(unchecked)
    var duplicates = 0
    /// The count and buffer identity of the array heard last (not the array itself: holding
    /// it would make every in-place edit of the relation copy it).
    @usableFromInline
    @exclusivity(unchecked)
    var lastArrayCount = 0
    @usableFromInline
    @exclusivity(unchecked)
    var lastArrayBase: _BufferIdentity = nil
    @usableFromInline
    @exclusivity(unchecked)
    var lastSetCount = 0
    /// The next order label of a set's element (its order of entry).
    @usableFromInline
    @exclusivity(unchecked)
    var nextSequence: UInt64 = 1
    /// Where the claims of the next member to enter start (see `_enter`).
    @usableFromInline
    @exclusivity(unchecked)
    var claimSeed: UInt16 = 0
    /// The section names before the first reconfiguration of the pending transaction, if it
    /// has one (to report the sections it renamed).
    @usableFromInline
    @exclusivity(unchecked)
    var namesBeforeReconfiguration: ((SectionKey) -> String)?
    /// The touched elements, in order, with whether their observed attributes changed.
    @usableFromInline
    @exclusivity(unchecked)
    var dirty: [(element: Element, changedAttributes: Bool)] = []
    /// The place in `dirty` of each touched element of `dirty[..<_indexed]`, once there are
    /// more than `_scanLimit`; those after it, appended by `touch` and `touchDistinct`, are
    /// indexed when one is next looked up (a first array of 10^6 elements then costs no
    /// dictionary at all).
    @usableFromInline
    @exclusivity(unchecked)
    var _dirtyIndex: [ObjectIdentifier: Int] = [:]
    @usableFromInline
    @exclusivity(unchecked)
    var _indexed = 0
    /// A spare buffer for the labels of a transaction (see `takeLabels()`).
    @usableFromInline
    @exclusivity(unchecked)
    var _labels: [UInt64] = []
    /// The observed attributes' fingerprint after the last change of each element changed in
    /// this transaction, compared with the member's when the transaction runs.
    @usableFromInline
    @exclusivity(unchecked)
    var latestFingerprints: [ObjectIdentifier: Int] = [:]
    /// Whether a function of the configuration was accepted without proof that it reads
    /// something observable (the relation was empty, or the function's results were the same
    /// for every element): the elements that enter are checked too (see `_checkEntered`).
    @usableFromInline
    @exclusivity(unchecked)
    var checksEntering = false
    /// The elements that entered since the last check, while `checksEntering`.
    @usableFromInline
    @exclusivity(unchecked)
    var entered: [Element] = []
    /// An element of an earlier check, for the next one's results to differ from (weak: it
    /// may have left the relation since).
    @usableFromInline
    @exclusivity(unchecked)
    weak var checkedBefore: Element?

    /// Up to this many touched elements are found by a scan of `dirty`, with no dictionary
    /// (most transactions touch one element: a dictionary would be an allocation each).
    @inlinable
    static var _scanLimit: Int { 8 }

    /// The place in `dirty` of the element with identity `id`, if it is touched.
    @inlinable
    func slot(of id: ObjectIdentifier) -> Int? {
      if dirty.count <= Self._scanLimit {
        for slot in dirty.indices where ObjectIdentifier(dirty[slot].element) == id {
          return slot
        }
        return nil
      }
      indexPending()
      return _dirtyIndex[id]
    }

    /// Touches `element` (with `changed`, its observed attributes changed).
    @inlinable
    func touch(_ element: Element, changed: Bool) {
      let id = ObjectIdentifier(element)
      if let slot = slot(of: id) {
        if changed { dirty[slot].changedAttributes = true }
        return
      }
      // Indexed by `indexPending` once there are more than `_scanLimit`.
      dirty.append((element, changed))
    }

    /// Touches `element`, which the caller knows is not touched yet.
    @inlinable
    func touchDistinct(_ element: Element) {
      dirty.append((element, false))
    }

    /// Forgets every touched element.
    @inlinable
    func removeAllTouches() {
      dirty = []
      _forgetIndex()
    }

    /// Takes the touched elements, leaving none: `dirty`'s buffer moves to the caller, who
    /// hands it back with Binding's `_recycle(_:into:)`.
    @inlinable
    func takeTouches() -> [(element: Element, changedAttributes: Bool)] {
      var touched: [(element: Element, changedAttributes: Bool)] = []
      swap(&touched, &dirty)
      _forgetIndex()
      return touched
    }

    /// An empty array for a transaction's order labels, with the capacity of the last one if it
    /// was small (handed back with Binding's `_recycle(_:into:)`).
    @inlinable
    func takeLabels() -> [UInt64] {
      var labels: [UInt64] = []
      swap(&labels, &_labels)
      return labels
    }

    /// Empties the fingerprints, keeping a small table.
    @inlinable
    func removeAllFingerprints() {
      latestFingerprints.removeAll(
        keepingCapacity: latestFingerprints.capacity <= _keptBufferCapacity)
    }

    @inlinable
    func _forgetIndex() {
      if !_dirtyIndex.isEmpty { _dirtyIndex = [:] }
      _indexed = 0
    }

    /// Indexes the elements appended since the last lookup, if there are more than
    /// `_scanLimit` (fewer are found by a scan).
    @inlinable
    func indexPending() {
      guard dirty.count > Self._scanLimit && _indexed < dirty.count else { return }
      _dirtyIndex.reserveCapacity(dirty.count)
      for slot in _indexed..<dirty.count {
        _dirtyIndex[ObjectIdentifier(dirty[slot].element)] = slot
      }
      _indexed = dirty.count
    }
  }

  /// The drainer's transaction under way (debug builds trap on any other thread).
  @inlinable
  var _work: _Work {
    #if DEBUG
      _drainerWork._checkDrainer()
    #endif
    return _drainerWork
  }

  /// The shared state for the drainer's reads without the lock, of the index and the
  /// configuration, which only it writes (debug builds trap on any other thread).
  @inlinable
  var _state: _State {
    #if DEBUG
      _drainerWork._checkDrainer()
    #endif
    return _unlockedState
  }

  /// The calling thread just became the drainer: the pipeline's phase turned `draining` for it
  /// (debug builds record it, see the top of this file).
  @inlinable
  func _beganDraining() {
    #if DEBUG
      _drainerWork._drainer = _currentThreadKey()
    #endif
  }

  /// Runs the pipeline's `transition` out of `draining` (under the lock): the calling thread
  /// stops being the drainer in the same step.
  @inlinable
  func _endDraining<Result>(_ transition: () -> Result) -> Result {
    #if DEBUG
      _drainerWork._checkDrainer()
      _drainerWork._drainer = 0
    #endif
    return transition()
  }

  /// Writes the shared state, from the drainer: the lock is held only for `body`, which must
  /// not call user code.
  @inline(__always)
  @inlinable
  func _write<Result>(_ body: (_State) -> Result) -> Result {
    _lock.withLock { body($0) }
  }

  /// The element of a member (members only ever hold `Element`s).
  @inline(__always)
  @inlinable
  func _element(_ member: _RelationMember) -> Element {
    unsafeDowncast(member.object, to: Element.self)
  }

  /// A change set with what receivers need besides it.
  @usableFromInline
  struct _Delivery {
    /// Its section names are set when it is delivered (see `_deliver`).
    @usableFromInline
    var changes: RelationChangeSet<Element>
    @usableFromInline
    let deletedSectionKeys: [SectionKey]
    @usableFromInline
    let insertedSectionKeys: [SectionKey]
    @usableFromInline
    let sectionName: (SectionKey) -> String

    @inlinable
    init(
      changes: RelationChangeSet<Element>, deletedSectionKeys: [SectionKey],
      insertedSectionKeys: [SectionKey], sectionName: @escaping (SectionKey) -> String
    ) {
      self.changes = changes
      self.deletedSectionKeys = deletedSectionKeys
      self.insertedSectionKeys = insertedSectionKeys
      self.sectionName = sectionName
    }
  }
}

/// A value of the relation, as the relation's observation heard it.
@usableFromInline
enum _RelationValue<Element: AnyObject> {
  case array([Element])
  case unordered(_SetValue<Element>)

  @inlinable
  static func set(_ set: Set<Element>) -> _RelationValue where Element: Hashable {
    .unordered(
      _SetValue(
        count: set.count, elements: { Array(set) },
        member: { element in set.firstIndex(of: element).map { set[$0] } }))
  }

  @inlinable
  func elements() -> [Element] {
    switch self {
    case .array(let array): array
    case .unordered(let set): set.elements()
    }
  }

  /// Whether `other` holds the same objects in the same order, by identity (a set read twice
  /// may list its members in another order: then only a needless transaction follows).
  @inlinable
  func holdsTheSameObjects(as other: _RelationValue) -> Bool {
    let (mine, theirs) = (elements(), other.elements())
    return mine.count == theirs.count && zip(mine, theirs).allSatisfy { $0 === $1 }
  }
}

/// A set relation's value with its `Hashable` element type erased.
@usableFromInline
struct _SetValue<Element: AnyObject> {
  @usableFromInline
  let count: Int
  @usableFromInline
  let elements: () -> [Element]
  /// The member equal to an element, if any.
  @usableFromInline
  let member: (Element) -> Element?

  @inlinable
  init(count: Int, elements: @escaping () -> [Element], member: @escaping (Element) -> Element?) {
    self.count = count
    self.elements = elements
    self.member = member
  }
}

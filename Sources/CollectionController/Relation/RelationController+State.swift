import Binding

// What a relation controller keeps, and who may touch it.
//
// `_State` is shared: any thread reads it with the controller's lock held (the content
// accessors, `_watchFired`, `reconfigure`), and the pipeline's state machine lives in it. The
// index and the configuration have one writer, the drainer (the one thread whose pipeline
// phase is `draining`), which writes them with the lock held and reads them without: no other
// thread writes them, so those reads race with nothing. The members are also written by the
// threads that re-watch an element (its watch, under the lock, see `_rewatch`), so everyone,
// the drainer too, reads them with the lock held. No user function (a filter, a comparator, a
// section function, a hash) ever runs with the lock held.
//
// `_Work` is the drainer's own: the transaction being built. Only the drainer touches it, and
// drains are serialised by the pipeline (a drain begins after the previous one ended, through
// the lock), so it needs no lock.

extension RelationController {
  /// The controller's shared state (see above).
  @usableFromInline
  final class _State {
    // No field has run-time exclusivity checks (for `index`, `config`, `members` and
    // `pipeline` they were a tenth of a move). Those checks only ever catch two overlapping
    // accesses on one thread, and there are none. The fields after `pipeline` are touched only
    // under the lock, with no user code running (removed handlers are released after it). For
    // the first four, the accesses are short, and user code that runs on the drainer's thread
    // while the drainer reads the index (comparators, key getters, a section key's `<`) cannot
    // write them, because the pipeline is draining: a relation write it makes is queued,
    // `reconfigure` queues, and a nested drain does not start (see
    // `userCodeThatWritesDuringTheDrainIsQueued` in FunctionsReadingTheControllerTests).
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
    /// Whether the owner was deallocated: nothing is observed or reported any more.
    @usableFromInline
    @exclusivity(unchecked)
    var ownerGone = false
    /// Whether the owner announced its deletion (its registration then ends too, which is not
    /// a deallocation).
    @usableFromInline
    @exclusivity(unchecked)
    var ownerDeleted = false
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

  /// The transaction the drainer builds (see above).
  @usableFromInline
  final class _Work {
    // Only the drainer touches it, and no access is open while user code runs: no run-time
    // exclusivity checks (they only catch overlapping accesses on one thread).
    @inlinable
    init() {}

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
    var lastArrayBase: UnsafeRawPointer?
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

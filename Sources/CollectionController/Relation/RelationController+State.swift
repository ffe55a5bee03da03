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
  final class _State {
    var index: _OrderedIndex<Element, SectionKey>
    var config: _Config<Element, SectionKey>
    var members = _MemberTable()
    var pipeline = _Pipeline<_Event>()
    /// Whether the owner was deallocated: nothing is observed or reported any more.
    var ownerGone = false
    /// Whether the owner announced its deletion (its registration then ends too, which is not
    /// a deallocation).
    var ownerDeleted = false
    weak var delegate: (any RelationControllerDelegate<Owner, Element, SectionKey>)?
    var handlers: [(id: UInt64, call: (RelationChangeSet<Element>) -> Void)] = []
    var streams: [UInt64: AsyncStream<_Transfer<RelationChangeSet<Element>>>.Continuation] = [:]
    var nextHandlerID: UInt64 = 0

    init(index: _OrderedIndex<Element, SectionKey>, config: _Config<Element, SectionKey>) {
      self.index = index
      self.config = config
    }
  }

  /// The transaction the drainer builds (see above).
  final class _Work {
    /// Extra occurrences in the array (an element held twice counts once here).
    var duplicates = 0
    /// The count and buffer identity of the array heard last (not the array itself: holding
    /// it would make every in-place edit of the relation copy it).
    var lastArrayCount = 0
    var lastArrayBase: UnsafeRawPointer?
    var lastSetCount = 0
    /// The next order label of a set's element (its order of entry).
    var nextSequence: UInt64 = 1
    /// Where the claims of the next member to enter start (see `_enter`).
    var claimSeed: UInt16 = 0
    /// The section names before the first reconfiguration of the pending transaction, if it
    /// has one (to report the sections it renamed).
    var namesBeforeReconfiguration: ((SectionKey) -> String)?
    /// The touched elements, in order, with whether their observed attributes changed.
    var dirty: [(element: Element, changedAttributes: Bool)] = []
    var dirtyIndex: [ObjectIdentifier: Int] = [:]
    /// The observed attributes' fingerprint after the last change of each element changed in
    /// this transaction, compared with the member's when the transaction runs.
    var latestFingerprints: [ObjectIdentifier: Int] = [:]
  }

  /// Writes the shared state, from the drainer: the lock is held only for `body`, which must
  /// not call user code.
  @inline(__always)
  func _write<Result>(_ body: (_State) -> Result) -> Result {
    _lock.withLock { body($0) }
  }

  /// The element of a member (members only ever hold `Element`s).
  @inline(__always)
  func _element(_ member: _RelationMember) -> Element {
    unsafeDowncast(member.object, to: Element.self)
  }

  /// A change set with what receivers need besides it.
  struct _Delivery {
    let changes: RelationChangeSet<Element>
    let deletedSectionKeys: [SectionKey]
    let insertedSectionKeys: [SectionKey]
    let sectionName: (SectionKey) -> String
  }
}

/// A value of the relation, as the relation's observation heard it.
enum _RelationValue<Element: AnyObject> {
  case array([Element])
  case unordered(_SetValue<Element>)

  static func set(_ set: Set<Element>) -> _RelationValue where Element: Hashable {
    .unordered(
      _SetValue(
        count: set.count, elements: { Array(set) },
        member: { element in set.firstIndex(of: element).map { set[$0] } }))
  }

  func elements() -> [Element] {
    switch self {
    case .array(let array): array
    case .unordered(let set): set.elements()
    }
  }
}

/// A set relation's value with its `Hashable` element type erased.
struct _SetValue<Element: AnyObject> {
  let count: Int
  let elements: () -> [Element]
  /// The member equal to an element, if any.
  let member: (Element) -> Element?
}

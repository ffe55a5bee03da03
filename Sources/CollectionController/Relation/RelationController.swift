import Binding
import Dispatch
import Foundation
import Observation

/// A filtered, sorted, sectioned view of one to-many relation of one model, with change sets a
/// table view applies as they are: NSFetchedResultsController for an `@Observed` array or set
/// of objects, on Linux and Apple platforms.
///
/// It guarantees that every change set, applied to the previous content with UITableView's
/// `performBatchUpdates` rules, gives the current content; that each transaction (one change,
/// or one `coalesce(_:)` block however many edits) is one change set, never empty;
/// and that the content a receiver reads matches the last change set it was handed.
///
/// ```swift
/// let albums = try RelationController(
///   \.albums, of: artist,
///   filter: .matching { !$0.isLive },
///   sortedBy: [SortDescriptor(\.releaseDate)],
///   sectionedBy: { $0.decade },
///   observing: [\.title])
/// let token = albums.onChange { changes in  // keep the token: released, it ends the handler
///   // changes.deletedSections, .insertedSections, .deletedRows, .insertedRows, .movedRows,
///   // .updatedRows; albums.sections already shows the new content
/// }
/// artist.insert(album, at: 0, into: \.albums)  // fine-grained: O(log n) for the controller
/// ```
///
/// **Identity** is the instance (`ObjectIdentifier`), never `==`. An array that holds an
/// instance twice shows it once, at its first occurrence.
///
/// **Order** is stable: ties of the sort (or no sort) keep relation order, which is source
/// order for arrays (an element inserted at index 0 appears first) and order of entry for sets.
/// `SortDescriptor`s on key paths to standard value types (numbers, `String`, `Date`, their
/// optionals) are read once per placement and their keys kept, so comparisons never read the
/// models; the order is exactly `sorted(using:)`'s, and a NaN key goes after every number
/// (see ChangeDelivery). Other comparators compare the live elements.
///
/// **Dependencies are discovered**: each element is re-evaluated when anything its filter,
/// sort or section functions read changes, through nested to-one paths (`\.label?.name`) and
/// to-many children (a sum over `tracks`), because the controller observes, per element, what
/// evaluating those functions reads, and re-tracks on every evaluation.
///
/// **Every visible change is reported**: an element that stays in place while something its
/// filter, sort or section functions read changed, or an attribute named in `observing:`, is
/// an update (one that moves, a move flagged `changed`), as NSFetchedResultsController
/// reports a changed object; entering or leaving the filter is an insert or a delete, never
/// an update too. Kept sort keys and observed attributes are compared by value; with a filter,
/// sections or a comparator whose keys are not kept (closures the controller cannot look
/// into), any write to the element or to an object they read counts, even of an equal value
/// (``RelationUpdates/everythingRead``). `reportsUpdatesOf: .observedAttributes` reports the
/// observed attributes only.
///
/// **Transactions**: one write is one change set (also the write of an object that several
/// elements read, such as a label that albums sort by), so is one `announceDeletion()` (also
/// of such a label), and so is one `coalesce(_:)` block, however many writes it holds.
///
/// **What it does not do**: it does not observe plain stored properties (only `@Observed`
/// ones, as everything in `Binding`), and it does not report its initial content (read it).
/// So that nothing goes stale without a word, a filter, sort comparator, section function or
/// observed attribute that reads no `@Observed` property for any current element (a
/// comparator: compared with itself or with a neighbour) is rejected when the controller is
/// made or reconfigured (``RelationConfigurationError``), if it depends on the element; a sort
/// on a key path to a constant (`let`) is accepted. While the relation is empty nothing can be
/// evaluated, so nothing is checked. ChangeDelivery lists what the check cannot catch (a plain
/// `var` read beside an `@Observed` property, among others).
///
/// **Memory**: about 100 bytes per element at a million elements: a 40-byte member, a 32-byte
/// node of the ordered index, and their identity tables; kept sort keys add their own size
/// (8 bytes for an `Int`, 16 for a `String` plus its storage when longer than 15 bytes). An
/// element whose filter, sort and section functions read only the element itself, and that
/// nothing else observes, keeps its observation in its own `ObservationStorage` (no
/// allocation); one that reads other objects costs a watch object and each object's
/// observation state (about 150 bytes more).
///
/// - Important: Lifetime: the controller retains its elements (the current members of the
///   relation) and its receivers' closures, but no copy of the relation's array or set (so
///   that editing the relation in place does not copy it); it does **not** retain the owner
///   of the relation (when the owner is deallocated, the content stays as it was and no change
///   follows) and holds its delegate weakly. Its handles keep it working: the controller
///   itself, each `onChange` token kept and each running iteration of ``changes``; releasing
///   the last of them ends all its observation. Elements that leave the relation stop being
///   observed at once.
/// - Important: Threading: the controller's own state is locked, so content can be read and
///   changes can happen on any thread. Deliveries are serialised: a change that arrives while
///   another thread delivers is queued and delivered after it, in order, one change set per
///   transaction (an element whose change is still queued may move in an earlier change set
///   than its own, which then reports nothing or an update). An element is re-evaluated, and
///   its observed attributes read, on the thread that wrote what it reads, right after the
///   write (as key-path observation does); placing it reads its filter, sort and section keys
///   where deliveries run. No function you give (filter, sort, section, section name) and no
///   receiver runs under a lock of the controller, so each may read the controller; one that
///   does while a transaction is applied sees the content as it is being rebuilt, and a reader
///   on another thread may see a transaction half applied (read in the delivery context, or in
///   a receiver, for the content of the last change set). Filter, sort and section functions
///   must not change models. Changing the elements of one controller from several threads at
///   once is a data race on those models, as with any class.
public final class RelationController<Element: ObservableModel, SectionKey: Hashable & Comparable>:
  @unchecked Sendable
{
  // `@unchecked Sendable`: every mutable stored property is behind `_lock`, except the tokens,
  // which are set once during `init` (before `self` is shared) and only released by `deinit`.

  /// One section of the content, as it was when handed out: it never changes afterwards.
  ///
  /// ```swift
  /// for section in albums.sections {
  ///   print(section.name, section.count)
  /// }
  /// ```
  public struct Section {
    /// The section key shared by the section's elements.
    public let key: SectionKey
    /// The display name of the section (`String(describing: key)` unless configured).
    public let name: String
    /// The section's elements, in order.
    public let objects: [Element]

    /// The number of elements in the section.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var count: Int { objects.count }

    @inlinable
    init(key: SectionKey, name: String, objects: [Element]) {
      self.key = key
      self.name = name
      self.objects = objects
    }
  }

  /// The content as section identifiers with item identifiers: what a diffable data source
  /// takes.
  ///
  /// ```swift
  /// let content = albums.snapshot
  /// var snapshot = NSDiffableDataSourceSnapshot<Int, ObjectIdentifier>()  // UIKit's
  /// snapshot.appendSections(content.sectionIdentifiers)
  /// for (section, items) in zip(content.sectionIdentifiers, content.itemIdentifiers) {
  ///   snapshot.appendItems(items, toSection: section)
  /// }
  /// ```
  public struct Snapshot: Hashable {
    /// The section keys, in order.
    public let sectionIdentifiers: [SectionKey]
    /// The identities of each section's elements, in order, parallel to `sectionIdentifiers`.
    public let itemIdentifiers: [[ObjectIdentifier]]

    @inlinable
    init(sectionIdentifiers: [SectionKey], itemIdentifiers: [[ObjectIdentifier]]) {
      self.sectionIdentifiers = sectionIdentifiers
      self.itemIdentifiers = itemIdentifiers
    }
  }

  /// Guards the shared state (see RelationController+State.swift for who touches what, and
  /// how that is checked).
  @usableFromInline
  let _lock: _Lock<_State>
  /// The state `_lock` guards, for the drainer's reads without the lock (through `_state`).
  @usableFromInline
  let _unlockedState: _State
  /// The transaction the drainer builds (through `_work`, by the drainer only).
  @usableFromInline
  let _drainerWork = _Work()
  /// Where change sets are delivered (Binding's scheduler).
  @usableFromInline
  let _route: _Route
  @usableFromInline
  let _owner: ObjectIdentifier
  @usableFromInline
  let _relation: AnyKeyPath
  /// The current configuration's comparator, for the index (only the drainer compares).
  @usableFromInline
  let _comparator: _ComparatorBox<Element>
  /// Where the elements' watches report (to `_watchFired`).
  @usableFromInline
  let _sink = _WatchSink()
  /// Waits for the ends of transactions for the controller, without keeping it alive.
  @usableFromInline
  let _relay = _TransactionRelay()
  @usableFromInline
  var _relationToken: ObservationToken?
  /// Swift Observation's view of the content (see `_accessContent`).
  @usableFromInline
  let _registrar = ObservationRegistrar()
  /// `\.sections`, made once: a key path literal in a generic class is instantiated from its
  /// mangled pattern on every evaluation, a cost a move would pay each time.
  @usableFromInline
  let _contentKeyPath: KeyPath<RelationController, [Section]>

  @inlinable
  init<Owner: ObservableModel>(
    owner: Owner, relation: AnyKeyPath, read: () -> _RelationValue<Element>,
    config: Configuration, permanentSectionKey: SectionKey?,
    delivery: ObservationDelivery, isolation: (any Actor)?,
    register: (RelationController) -> ObservationToken
  ) throws(RelationConfigurationError) {
    let initial = read()
    if owner.isDeleted {
      throw RelationConfigurationError(
        "the owner \(Owner.self) announced its deletion, so its relation \(relation) cannot be "
          + "observed; no controller was created")
    }
    try config.validate(initial.elements(), outcome: "no controller was created")
    _route = _Route(delivery, isolation: isolation)
    _contentKeyPath = \.sections
    _owner = ObjectIdentifier(owner)
    _relation = relation
    let comparator = _ComparatorBox(config.compare)
    _comparator = comparator
    var index = _OrderedIndex<Element, SectionKey>(permanentSectionKey: permanentSectionKey) {
      comparator.compare($0, $1)
    }
    index.keys = config.makeKeys()
    let state = _State(index: index, config: config)
    if case .synchronous = _route { state.pipeline.drainsWhereRequested = true }
    _unlockedState = state
    _lock = _Lock(state)
    // The initial content: built by this thread as the drainer (nobody else can reach the
    // controller yet but its elements' watches, which queue events for after it), and not
    // reported.
    state.pipeline.beginFirstDrain()
    _beganDraining()
    _sink.attach(self)
    _relay.attach(self)
    _fold(.relation(initial, hint: nil))
    _work.checksEntering = config.isUndecided(initial.elements())
    _work.checkedBefore = initial.elements().first
    _ = _transaction(reports: false)
    _checkInvariants()
    _drainQueue()
    let token = register(self)
    _relationToken = token
    // A write made between the first read and the registration (by another thread, perhaps
    // started by a function the validation or the build ran) was not heard: the relation is
    // read again now that every later write is, and a difference is a transaction of its own.
    let current = read()
    if !current.holdsTheSameObjects(as: initial) {
      _enqueueTransaction(.relation(current, hint: nil))
    }
    // Deleted between the check above and the registration: the content empties, as if the
    // deletion came just after (and the registration's end below is not a deallocation).
    if owner.isDeleted { _ownerEnded(deleted: true) }
    // Through the non-generic protocol: a `@Sendable` closure must capture no generic metatype.
    let receiver: any _StreamOwner = self
    token.onEnd { [weak receiver] in receiver?._ownerEnded(deleted: false) }
  }

  deinit {
    _relationToken?.cancel()
    let (members, continuations) = _lock.withLock { state in
      (state.members.values, state.streams.values)
    }
    for member in members {
      member.watch?.end(of: _element(member), sink: _sink)
    }
    for continuation in continuations { continuation.finish() }
  }
}

extension RelationController: CustomStringConvertible {
  /// The section keys and element counts, for logs.
  @inlinable
  public var description: String {
    let counts = _lock.withLock { state in
      (0..<state.index.sectionCount).map {
        (state.index.sectionKey(at: $0), state.index.count(inSection: $0))
      }
    }
    // Keys are described outside the lock: describing is user code.
    let text = counts.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
    return "RelationController(\(Element.self): \(text))"
  }
}

// MARK: - Content

/// Swift Observation sees the content: a SwiftUI view (or `withObservationTracking`) that reads
/// ``RelationController/sections``, ``RelationController/count``, ``RelationController/object(at:)``
/// or any other content of the controller is told when a change set is delivered, in the
/// delivery context, before the receivers are called; reading the controller again then gives
/// the content of that change set. UIKit code keeps its change sets: the same controller drives
/// both.
///
/// ```swift
/// extension Album: Identifiable {}  // a class: its identity is its id
///
/// struct AlbumsView: View {
///   let albums: RelationController<Album, Int>
///   var body: some View {
///     List(albums.sections, id: \.key) { section in
///       Section(section.name) { ForEach(section.objects) { Text($0.title) } }
///     }
///   }
/// }
/// ```
extension RelationController: Observable {
  /// Tells Swift Observation that the content was read.
  @inlinable
  func _accessContent() { _registrar.access(self, keyPath: _contentKeyPath) }

  /// Tells Swift Observation that the content changed (in the delivery context).
  @inlinable
  func _contentChanged() { _registrar.withMutation(of: self, keyPath: _contentKeyPath) {} }
}

extension RelationController {
  /// The sections, in key order, as values that never change afterwards.
  ///
  /// ```swift
  /// let names = albums.sections.map { $0.name }
  /// ```
  ///
  /// - Complexity: O(n + s), where *n* is the number of elements and *s* of sections.
  @inlinable
  public var sections: [Section] {
    _accessContent()
    let (content, name) = _lock.withLock { state in
      (
        (0..<state.index.sectionCount).map { _sectionContent(state, at: $0) },
        state.config.sectionName
      )
    }
    return content.map { Section(key: $0.key, name: name($0.key), objects: $0.objects) }
  }

  /// The section at `index`.
  ///
  /// ```swift
  /// let first = albums.section(at: 0)
  /// ```
  ///
  /// - Parameter index: The index of the section, in `0..<numberOfSections`.
  /// - Returns: The section, as a value that never changes afterwards.
  /// - Complexity: O(k), where *k* is the number of elements in the section.
  @inlinable
  public func section(at index: Int) -> Section {
    _accessContent()
    let (content, name) = _lock.withLock { state in
      _require(
        index >= 0 && index < state.index.sectionCount,
        "RelationController: section \(index) is out of range 0..<\(state.index.sectionCount)")
      return (_sectionContent(state, at: index), state.config.sectionName)
    }
    return Section(key: content.key, name: name(content.key), objects: content.objects)
  }

  /// The number of sections (exactly 1 for a controller without sections).
  ///
  /// - Complexity: O(1).
  @inlinable
  public var numberOfSections: Int {
    _accessContent()
    return _lock.withLock { $0.index.sectionCount }
  }

  /// The number of elements in the section at `section`.
  ///
  /// ```swift
  /// func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {
  ///   albums.numberOfObjects(inSection: section)
  /// }
  /// ```
  ///
  /// - Parameter section: The index of the section, in `0..<numberOfSections`.
  /// - Returns: The number of elements in the section.
  /// - Complexity: O(1).
  @inlinable
  public func numberOfObjects(inSection section: Int) -> Int {
    _accessContent()
    return _lock.withLock { state in
      _require(
        section >= 0 && section < state.index.sectionCount,
        "RelationController: section \(section) is out of range 0..<\(state.index.sectionCount)")
      return state.index.count(inSection: section)
    }
  }

  /// The number of elements shown (in all sections).
  ///
  /// - Complexity: O(1).
  @inlinable
  public var count: Int {
    _accessContent()
    return _lock.withLock { $0.index.count }
  }

  /// Whether no element is shown.
  ///
  /// - Complexity: O(1).
  @inlinable
  public var isEmpty: Bool {
    _accessContent()
    return _lock.withLock { $0.index.isEmpty }
  }

  /// All elements shown, section after section, in order.
  ///
  /// - Complexity: O(n), where *n* is the number of elements.
  @inlinable
  public var objects: [Element] {
    _accessContent()
    return _lock.withLock { state in
      var result: [Element] = []
      result.reserveCapacity(state.index.count)
      for section in 0..<state.index.sectionCount {
        state.index.forEach(inSection: section) { result.append($0) }
      }
      return result
    }
  }

  /// The element at `position`.
  ///
  /// ```swift
  /// let album = albums.object(at: RowPosition(section: 0, row: 2))
  /// ```
  ///
  /// - Parameter position: A position in the content.
  /// - Returns: The element there.
  /// - Precondition: `position` is in range (a message names it otherwise).
  /// - Complexity: O(log n), where *n* is the number of elements; no copy of the content.
  @inlinable
  public func object(at position: RowPosition) -> Element {
    _accessContent()
    return _lock.withLock { state in
      _require(
        position.section >= 0 && position.section < state.index.sectionCount
          && position.row >= 0 && position.row < state.index.count(inSection: position.section),
        "RelationController: position \(position) is out of range")
      return state.index.element(at: position)
    }
  }

  /// The position of `element`, or `nil` if it is not shown (not in the relation, filtered
  /// out, or deleted).
  ///
  /// ```swift
  /// if let position = albums.position(of: album) {
  ///   print("row \(position.row) of section \(position.section)")
  /// }
  /// ```
  ///
  /// - Parameter element: The element to find (by identity).
  /// - Returns: Its position, or `nil`.
  /// - Complexity: Expected O(log n), where *n* is the number of elements.
  @inlinable
  public func position(of element: Element) -> RowPosition? {
    _accessContent()
    return _lock.withLock { $0.index.position(of: ObjectIdentifier(element)) }
  }

  /// The content as section identifiers with item identifiers (for diffable data sources).
  ///
  /// - Complexity: O(n + s), where *n* is the number of elements and *s* of sections.
  @inlinable
  public var snapshot: Snapshot {
    _accessContent()
    return _lock.withLock { state in
      let content = state.index.snapshot()
      return Snapshot(
        sectionIdentifiers: content.map { $0.sectionKey },
        itemIdentifiers: content.map { $0.identifiers })
    }
  }

  /// The key and elements of the section at `index` (its name is user code: ask for it
  /// outside the lock).
  @inlinable
  func _sectionContent(_ state: _State, at index: Int) -> (key: SectionKey, objects: [Element]) {
    (state.index.sectionKey(at: index), state.index.elements(inSection: index))
  }
}

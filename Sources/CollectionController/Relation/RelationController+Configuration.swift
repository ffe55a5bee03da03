import Binding
import Foundation
import Synchronization

extension RelationController {
  /// Which elements a controller shows: a closure or a Foundation `Predicate`.
  ///
  /// ```swift
  /// try albums.reconfigure { $0.filter = .matching { $0.year > 1990 } }
  /// try albums.reconfigure { $0.filter = .matching(#Predicate { $0.year > 1990 }) }
  /// ```
  public struct Filter {
    /// Decides whether an element is shown.
    @usableFromInline
    let evaluate: (Element) throws -> Bool
    /// Whether `evaluate` may throw (a `Predicate`'s does).
    @usableFromInline
    let `throws`: Bool

    /// A filter that shows the elements for which `isIncluded` returns `true`.
    ///
    /// - Parameter isIncluded: Decides; it may read anything observable.
    @inlinable
    public init(_ isIncluded: @escaping (Element) -> Bool) {
      evaluate = isIncluded
      `throws` = false
    }

    /// A filter that shows the elements for which `predicate` evaluates to `true`.
    ///
    /// An element for which the predicate throws is not shown; a predicate that throws for a
    /// current element when the controller is created or reconfigured is a configuration
    /// error.
    ///
    /// - Parameter predicate: Decides; it may read anything observable.
    @inlinable
    public init(_ predicate: Predicate<Element>) {
      evaluate = { try predicate.evaluate($0) }
      `throws` = true
    }

    /// A filter that shows the elements for which `isIncluded` returns `true`.
    ///
    /// ```swift
    /// let albums = try RelationController(\.albums, of: artist, filter: .matching { !$0.isLive })
    /// ```
    ///
    /// - Parameter isIncluded: Decides; it may read anything observable.
    /// - Returns: The filter.
    @inlinable
    public static func matching(_ isIncluded: @escaping (Element) -> Bool) -> Filter {
      Filter(isIncluded)
    }

    /// A filter that shows the elements for which `predicate` evaluates to `true` (see
    /// ``init(_:)-(Predicate<Element>)``).
    ///
    /// ```swift
    /// let albums = try RelationController(
    ///   \.albums, of: artist, filter: .matching(#Predicate { !$0.isLive }))
    /// ```
    ///
    /// - Parameter predicate: Decides; it may read anything observable.
    /// - Returns: The filter.
    @inlinable
    public static func matching(_ predicate: Predicate<Element>) -> Filter {
      Filter(predicate)
    }

  }

  /// What a controller shows and how: filter, sort, sections, observed attributes, and which
  /// changes are updates.
  ///
  /// Read it with ``RelationController/configuration`` and change it with
  /// ``RelationController/reconfigure(_:)``, which reports one diffed change set.
  ///
  /// ```swift
  /// try albums.reconfigure { configuration in
  ///   configuration.sortedBy = [SortDescriptor(\.title)]
  ///   configuration.filter = nil
  /// }
  /// ```
  public struct Configuration {
    /// The configuration and what is derived from it, in one object: a controller's
    /// transactions and watches each retain one reference.
    @usableFromInline
    var _storage: _ConfigurationStorage<Element, SectionKey>

    /// Which elements to show; `nil` shows all.
    @inlinable
    public var filter: Filter? {
      get { _storage.filter }
      set { _storage = _storage.with(filter: newValue) }
    }
    /// Sort comparators, first decides; ties keep relation order.
    @inlinable
    public var sortedBy: [any SortComparator<Element>] {
      get { _storage.sortedBy }
      set { _storage = _storage.with(sortedBy: newValue) }
    }
    /// The section key of an element (a constant for a controller without sections).
    @inlinable
    public var sectionedBy: (Element) -> SectionKey {
      get { _storage.sectionedBy }
      set { _storage = _storage.with(sectionedBy: newValue) }
    }
    /// The display name of a section.
    @inlinable
    public var sectionName: (SectionKey) -> String {
      get { _storage.sectionName }
      set { _storage = _storage.with(sectionName: newValue) }
    }
    /// Attributes whose change is reported as an update (or a move flagged `changed`), besides
    /// what the filter, sort and section functions read (see ``reportsUpdatesOf``).
    ///
    /// When an element is re-evaluated, its attributes are compared with the previous
    /// evaluation's by a 64-bit hash of their values (`Hashable` values), by identity (objects),
    /// or not at all (other values count as changed on every re-evaluation of the element).
    /// They are compared once per transaction, so a value written and written back within one
    /// (a `coalesce` block) is no change.
    @inlinable
    public var observing: [PartialKeyPath<Element>] {
      get { _storage.observing }
      set { _storage = _storage.with(observing: newValue) }
    }
    /// Which changes of an element that stays in place are reported as updates (and flag a
    /// move `changed`): by default ``RelationUpdates/everythingRead``, every change of what the
    /// functions and observed attributes read; ``RelationUpdates/observedAttributes`` for the
    /// observed attributes only.
    ///
    /// ```swift
    /// try albums.reconfigure { $0.reportsUpdatesOf = .observedAttributes }
    /// ```
    @inlinable
    public var reportsUpdatesOf: RelationUpdates {
      get { _storage.reportsUpdatesOf }
      set { _storage = _storage.with(reportsUpdatesOf: newValue) }
    }

    @inlinable
    init(
      filter: Filter?, sortedBy: [any SortComparator<Element>],
      sectionedBy: @escaping (Element) -> SectionKey,
      sectionName: @escaping (SectionKey) -> String = { String(describing: $0) },
      observing: [PartialKeyPath<Element>], reportsUpdatesOf: RelationUpdates = .everythingRead
    ) {
      _storage = _ConfigurationStorage(
        filter: filter, sortedBy: sortedBy, sectionedBy: sectionedBy, sectionName: sectionName,
        observing: observing, reportsUpdatesOf: reportsUpdatesOf)
    }

    /// Orders two elements by ``sortedBy``.
    @inlinable
    var compare: (Element, Element) -> ComparisonResult { _storage.compare }
    /// Reads what the sort reads of an element (its kept keys' key paths when they can be kept).
    @inlinable
    var readSortKeys: (Element) -> Void { _storage.readSortKeys }
    /// Whether every event of an element counts as a change of what it shows (see
    /// `_ConfigurationStorage.updatesOnEveryEvent`).
    @inlinable
    var updatesOnEveryEvent: Bool { _storage.updatesOnEveryEvent }
  }

  /// The current configuration.
  ///
  /// - Complexity: O(1).
  @inlinable
  public var configuration: Configuration {
    _lock.withLock { state in state.config }
  }

  /// Changes the filter, sort, sections, observed attributes or update rule, and reports the
  /// difference as one change set.
  ///
  /// ```swift
  /// try albums.reconfigure { $0.sortedBy = [SortDescriptor(\.title, order: .reverse)] }
  /// ```
  ///
  /// - Parameter update: Changes the configuration.
  /// - Throws: ``RelationConfigurationError`` when the new configuration cannot be honoured (a
  ///   predicate that throws for a current element, a NaN section key, a function that reads
  ///   no `@Observed` property); the controller and the models are then exactly as before.
  /// - Complexity: O(n log n), where *n* is the number of elements of the relation.
  @inlinable
  public func reconfigure(
    _ update: (inout Configuration) -> Void
  ) throws(RelationConfigurationError) {
    var config = self.configuration
    update(&config)
    let members = _lock.withLock { state in state.members.values.map(_element) }
    try config.validate(members, outcome: "the controller was left as it was")
    _enqueueTransaction(.reconfigure(config))
  }
}

/// The storage of a ``RelationController/Configuration``: immutable (a change makes a new one),
/// with the comparison and the hashers derived from it once.
@usableFromInline
final class _ConfigurationStorage<Element: ObservableModel, SectionKey: Hashable & Comparable> {
  @usableFromInline
  let filter: RelationController<Element, SectionKey>.Filter?
  @usableFromInline
  let sortedBy: [any SortComparator<Element>]
  @usableFromInline
  let sectionedBy: (Element) -> SectionKey
  @usableFromInline
  let sectionName: (SectionKey) -> String
  @usableFromInline
  let observing: [PartialKeyPath<Element>]
  @usableFromInline
  let reportsUpdatesOf: RelationUpdates
  @usableFromInline
  let compare: (Element, Element) -> ComparisonResult
  /// Reads what the sort reads of an element (its kept keys' key paths when they can be kept).
  @usableFromInline
  let readSortKeys: (Element) -> Void
  /// Adds each compared attribute of an element to a hasher (the observed attributes, then,
  /// when `hashesSortKeys`, the kept sort keys' key paths): through its type for `Hashable`
  /// values (no boxing, no dynamic cast per read), through `_combine` otherwise.
  @usableFromInline
  let _hashers: [(Element, inout Hasher) -> Void]
  /// Whether every event of an element (its watch fired: a write of the element or of an
  /// object its functions read) counts as a change of what it shows: reporting everything
  /// read, with a function the controller cannot look into (a filter, a section function, a
  /// comparator whose keys are not kept), which may read anything. The fingerprint then
  /// decides nothing.
  @usableFromInline
  let updatesOnEveryEvent: Bool
  /// Whether the fingerprint covers the kept sort keys too (reporting everything read, with
  /// no function the controller cannot look into): reading a kept key is reading its key path,
  /// so the fingerprint then reads everything the functions read, and an evaluation is the
  /// fingerprint alone.
  @usableFromInline
  let hashesSortKeys: Bool

  @inlinable
  init(
    filter: RelationController<Element, SectionKey>.Filter?,
    sortedBy: [any SortComparator<Element>],
    sectionedBy: @escaping (Element) -> SectionKey,
    sectionName: @escaping (SectionKey) -> String,
    observing: [PartialKeyPath<Element>],
    reportsUpdatesOf: RelationUpdates
  ) {
    self.filter = filter
    self.sortedBy = sortedBy
    self.sectionedBy = sectionedBy
    self.sectionName = sectionName
    self.observing = observing
    self.reportsUpdatesOf = reportsUpdatesOf
    let keys = _SortKeys.make(sortedBy)
    // A controller without sections has a constant section function (`Unsectioned`). Kept sort
    // keys read their key paths and nothing else (standard value types); other comparators
    // (a `KeyPathComparator`, a key of your own type whose `<` may read other objects) are
    // closures too.
    let readsOpaquely =
      filter != nil || SectionKey.self != Unsectioned.self || (!sortedBy.isEmpty && keys == nil)
    updatesOnEveryEvent = reportsUpdatesOf == .everythingRead && readsOpaquely
    hashesSortKeys = reportsUpdatesOf == .everythingRead && !readsOpaquely && !sortedBy.isEmpty
    // Safe: kept keys are made of `SortDescriptor`s with key paths only.
    let compared =
      hashesSortKeys ? observing + sortedBy.map { _sortKeyPath($0).unsafelyUnwrapped } : observing
    _hashers = compared.map { keyPath in
      if let hashable = keyPath as? any _HashableKeyPath<Element> {
        return hashable._hasher()
      }
      return { element, hasher in _combine(element[keyPath: keyPath], into: &hasher) }
    }
    let comparators = sortedBy
    compare = { a, b in
      for comparator in comparators {
        let result = comparator.compare(a, b)
        if result != .orderedSame { return result }
      }
      return .orderedSame
    }
    if let keys {
      // Reading is stateless, so any thread may read through this one instance.
      readSortKeys = keys.read
    } else {
      readSortKeys = { element in
        for comparator in comparators { _ = comparator.compare(element, element) }
      }
    }
  }

  /// This storage with some of its parts replaced.
  @inlinable
  func with(
    filter: RelationController<Element, SectionKey>.Filter?? = nil,
    sortedBy: [any SortComparator<Element>]? = nil,
    sectionedBy: ((Element) -> SectionKey)? = nil,
    sectionName: ((SectionKey) -> String)? = nil,
    observing: [PartialKeyPath<Element>]? = nil,
    reportsUpdatesOf: RelationUpdates? = nil
  ) -> _ConfigurationStorage {
    _ConfigurationStorage(
      filter: filter ?? self.filter, sortedBy: sortedBy ?? self.sortedBy,
      sectionedBy: sectionedBy ?? self.sectionedBy, sectionName: sectionName ?? self.sectionName,
      observing: observing ?? self.observing,
      reportsUpdatesOf: reportsUpdatesOf ?? self.reportsUpdatesOf)
  }
}

extension RelationController.Configuration {
  /// Whether every `SectionKey` is equal to itself: a standard type that is not a floating-point
  /// number (the common section keys: integers, strings, `Unsectioned`).
  @inlinable
  static var _reflexive: Bool {
    SectionKey.self is any BinaryInteger.Type || SectionKey.self == String.self
      || SectionKey.self == Unsectioned.self || SectionKey.self == Bool.self
  }

  /// Kept sort keys for a new index, or `nil` when the sort compares live elements.
  @inlinable
  func makeKeys() -> _SortKeys<Element>? { _SortKeys.make(sortedBy) }

  @inlinable
  func includes(_ element: Element) -> Bool {
    // Through optional chaining, which reads the filter where it is stored: `if let` copies
    // it (retaining its closure) on every call, and this runs for every placement.
    guard _storage.filter != nil else { return true }
    return (try? _storage.filter?.evaluate(element)) ?? false
  }

  /// Checks what can only be checked at run time: the current elements' section keys must be
  /// equal to themselves (a NaN is not, and cannot be ordered), and a predicate must not throw
  /// for them.
  ///
  /// - Parameter outcome: What the error's message ends with, naming what exists: at creation
  ///   "no controller was created", on reconfiguration "the controller was left as it was".
  @inlinable
  func validate(
    _ elements: [Element], outcome: String
  ) throws(RelationConfigurationError) {
    if let function = functionReadingNothing(elements) {
      throw RelationConfigurationError(Self.readsNothingMessage(function) + "; " + outcome)
    }
    // Only a key that can be unequal to itself (a floating-point NaN, or a type holding one)
    // needs the check: the section function (user code) is not run for the others.
    if !Self._reflexive {
      for element in elements where !element.isDeleted && includes(element) {
        let key = sectionedBy(element)
        if key != key {
          throw RelationConfigurationError(
            "the section key \(key) of the element \(element) is not equal to itself (a "
              + "floating-point NaN?); sections are ordered by key, so section keys must be "
              + "totally ordered; " + outcome)
        }
      }
    }
    guard let filter, filter.throws else { return }
    for element in elements where !element.isDeleted {
      do {
        _ = try filter.evaluate(element)
      } catch {
        throw RelationConfigurationError(
          "the filter predicate threw \(error) for the element \(element) of type "
            + "\(Element.self); " + outcome)
      }
    }
  }

  /// Reads everything the filter, sort and section functions read of `element` (so that
  /// watching the evaluation watches it) and returns the fingerprint of its compared
  /// attributes (the observed attributes, and the sort keys when the configuration hashes
  /// them): equal fingerprints mean unchanged attributes, up to a 64-bit hash collision.
  @inlinable
  func readInputs(_ element: Element) -> Int {
    // No filter, one section and kept sort keys only: hashing the keys reads what the sort
    // reads (each key path once), and nothing else is read.
    if _storage.hashesSortKeys { return fingerprint(element) }
    _ = try? _storage.filter?.evaluate(element)  // (not `if let`: see `includes`)
    _ = sectionedBy(element)
    readSortKeys(element)
    return fingerprint(element)
  }

  /// The first function of this configuration that would go stale without a word (described
  /// for a message), or `nil`.
  ///
  /// Decided per function: one that reads an `@Observed` property in any of the runs made here
  /// is accepted (it passes on the first such run, so this usually runs each function once).
  /// The filter, the section function and an observed attribute are run on each current
  /// element; a comparator on each element against itself (as the controller runs it when it
  /// watches the element, which reaches every tie-breaking stage), then on neighbouring
  /// pairs. One that reads none (as far as observation can tell, nothing it reads can change)
  /// is rejected when:
  /// - its results differ between the current elements, or it orders two neighbours: it reads
  ///   something per element that nobody can observe (`{ $0.note.isEmpty }` with `note` a
  ///   plain `var`, or a `let`);
  /// - it sorts by a key path that can be written (a plain `var`);
  /// - it is an observed attribute (an update of it could never be reported).
  ///
  /// Accepted: a function whose result is the same for every current element (a constant such
  /// as `{ _ in 0 }`, or `{ query.isEmpty || $0.title.contains(query) }` while `query` is
  /// empty), and a sort on a key path that cannot be written (a `let`). Not caught, because
  /// observation sees only `@Observed` reads: a plain `var` that a function also reads, or
  /// reads for the elements for which it reads nothing observed (which cannot be told from a
  /// `let`, a constant), and a sort on a read-only computed property over plain `var`s (a key
  /// path cannot be told from one to a `let`). Nothing is checked while the relation is empty.
  @inlinable
  func functionReadingNothing(_ elements: [Element]) -> (function: String, reason: String)? {
    let live = elements.filter { !$0.isDeleted }
    guard !live.isEmpty else { return nil }
    /// Whether `evaluate` reads no `@Observed` property for any element, and its results
    /// differ (`same` tells equal results).
    func variesUnobserved<Result>(
      _ evaluate: (Element) -> Result, same: (Result, Result) -> Bool
    ) -> Bool {
      var first: Result?
      var varies = false
      for element in live {
        var result: Result?
        if _readsObservedProperty(of: element, { result = evaluate(element) }) { return false }
        // Set by the evaluation just above.
        guard let result else { continue }
        if let first {
          varies = varies || !same(first, result)
        } else {
          first = result
        }
      }
      return varies
    }
    func readsNothing(_ evaluate: (Element) -> Void) -> Bool {
      !live.contains { element in _readsObservedProperty(of: element) { evaluate(element) } }
    }
    let differ = "its results differ between the current elements"
    if let filter,
      variesUnobserved({ (try? filter.evaluate($0)) ?? false }, same: ==)
    {
      return ("the filter", differ)
    }
    for (index, comparator) in sortedBy.enumerated() {
      let name = "the sort comparator \(index + 1) of \(sortedBy.count)"
      if let keyPath = _sortKeyPath(comparator) {
        if _isWritable(keyPath), readsNothing({ _ = $0[keyPath: keyPath] }) {
          return ("\(name) (on \(keyPath))", "its key path can be written (a plain `var`)")
        }
        continue
      }
      // Decided for the comparator, not for the pairs that happen to exist: it is run on each
      // element against itself, as the controller runs it to learn what to watch (a tie
      // reaches every tie-breaking stage, such as an `@Observed` score after a `let` group
      // that no two current elements share), then on neighbouring pairs (a comparator may
      // read only when the two differ). One that reads nothing in all of these runs and still
      // orders two neighbours reads something per element that nobody can observe.
      let pairs = zip(live, live.dropFirst())
      let readsSomething =
        live.contains { element in
          _readsObservedProperty(of: element) { _ = comparator.compare(element, element) }
        }
        || pairs.contains { a, b in _readsObservedProperty(of: a) { _ = comparator.compare(a, b) } }
      if !readsSomething && pairs.contains(where: { comparator.compare($0, $1) != .orderedSame }) {
        return ("\(name) (\(type(of: comparator)))", "it orders the current elements")
      }
    }
    if SectionKey.self != Unsectioned.self, variesUnobserved(sectionedBy, same: ==) {
      return ("the section function (sectionedBy:)", differ)
    }
    for keyPath in observing where readsNothing({ _ = $0[keyPath: keyPath] }) {
      return ("the observed attribute \(keyPath)", "an update of it could never be reported")
    }
    return nil
  }

  /// Whether `elements` leave a function accepted without proof that it reads something
  /// observable: fewer than two live elements, or a filter, section function or comparator
  /// (other than one on a key path that cannot be written, a `let`) that read no `@Observed`
  /// property for any of them. The elements that enter later are then checked too.
  @inlinable
  func isUndecided(_ elements: [Element]) -> Bool {
    // Lazily: a function that reads something is usually seen doing so on the first element,
    // so the check reads few elements, not all of them, at a creation.
    let live = elements.lazy.filter { !$0.isDeleted }
    guard live.dropFirst().first != nil else { return true }  // fewer than two
    func readsNothing(_ evaluate: (Element) -> Void) -> Bool {
      !live.contains { element in _readsObservedProperty(of: element) { evaluate(element) } }
    }
    if let filter, readsNothing({ _ = try? filter.evaluate($0) }) { return true }
    if SectionKey.self != Unsectioned.self, readsNothing({ _ = sectionedBy($0) }) { return true }
    for comparator in sortedBy {
      if let keyPath = _sortKeyPath(comparator) {
        if _isWritable(keyPath), readsNothing({ _ = $0[keyPath: keyPath] }) { return true }
        continue
      }
      let pairs = zip(live, live.dropFirst())
      if readsNothing({ _ = comparator.compare($0, $0) })
        && !pairs.contains(where: { a, b in
          _readsObservedProperty(of: a) { _ = comparator.compare(a, b) }
        })
      {
        return true
      }
    }
    return false
  }

  /// The message of a ``RelationConfigurationError`` for a function that would go stale.
  @inlinable
  static func readsNothingMessage(_ function: (function: String, reason: String)) -> String {
    "\(function.function) reads no @Observed property of \(Element.self) (nor of an object it "
      + "reaches), yet \(function.reason): no change of what it reads can reach the controller, "
      + "so the content would go stale without a word. Mark what it reads @Observed (a `let` "
      + "too)"
  }

  /// The fingerprint of `element`'s compared attributes (see `readInputs`).
  @inlinable
  func fingerprint(_ element: Element) -> Int {
    guard !_storage._hashers.isEmpty else { return 0 }
    var hasher = Hasher()
    for combine in _storage._hashers { combine(element, &hasher) }
    return hasher.finalize()
  }
}

/// The key path a `SortDescriptor` or `KeyPathComparator` sorts by, if it is one.
@inlinable
func _sortKeyPath<Element>(_ comparator: any SortComparator<Element>) -> PartialKeyPath<Element>? {
  if let descriptor = comparator as? SortDescriptor<Element> { return descriptor.keyPath }
  if let keyPathComparator = comparator as? KeyPathComparator<Element> {
    return keyPathComparator.keyPath
  }
  return nil
}

/// Whether `keyPath` can be written (a `var`, or a computed property with a setter).
@inlinable
func _isWritable<Root>(_ keyPath: PartialKeyPath<Root>) -> Bool {
  func open<Value>(_: Value.Type) -> Bool { keyPath is WritableKeyPath<Root, Value> }
  return _openExistential(type(of: keyPath).valueType, do: open)
}

/// Orders elements with the current configuration's comparator; swapped by reconfiguration
/// while the index is empty of the elements it would compare (all are removed first).
@usableFromInline
final class _ComparatorBox<Element> {
  @usableFromInline
  var compare: (Element, Element) -> ComparisonResult

  @inlinable
  init(_ compare: @escaping (Element, Element) -> ComparisonResult) { self.compare = compare }
}

/// A fresh value on each call, so that a fingerprint with an attribute that cannot be hashed
/// never matches the previous one.
@usableFromInline
let _unhashableCounter = Atomic<Int>(0)

/// Adds an observed attribute's value to a fingerprint: its hash when `Hashable`, its identity
/// when an object (optional objects too: `label: Label?`), otherwise a fresh value (such an
/// attribute counts as changed whenever the element is re-evaluated).
@inlinable
func _combine(_ value: Any, into hasher: inout Hasher) {
  if let value = value as? any Hashable {
    hasher.combine(value)
  } else if let optional = value as? any _OptionalValue {
    // Not `Hashable` (else it matched above): look at what it wraps.
    if let wrapped = optional._wrapped {
      hasher.combine(1 as UInt8)
      _combine(wrapped, into: &hasher)
    } else {
      hasher.combine(0 as UInt8)
    }
  } else if type(of: value) is AnyObject.Type {
    hasher.combine(ObjectIdentifier(value as AnyObject))
  } else {
    hasher.combine(_unhashableCounter.add(1, ordering: .relaxed).newValue)
  }
}

/// A key path to a `Hashable` value, opened once to hash its values by their type.
@usableFromInline
protocol _HashableKeyPath<Root> {
  associatedtype Root
  /// A function adding the value at this key path of an element to a hasher, typed.
  func _hasher() -> (Root, inout Hasher) -> Void
}

extension KeyPath: _HashableKeyPath where Value: Hashable {
  @inlinable
  func _hasher() -> (Root, inout Hasher) -> Void {
    { root, hasher in hasher.combine(root[keyPath: self]) }
  }
}

/// An `Optional` seen through `Any`, so that a fingerprint can look inside.
@usableFromInline
protocol _OptionalValue {
  var _wrapped: Any? { get }
}

extension Optional: _OptionalValue {
  @inlinable
  var _wrapped: Any? { map { $0 as Any } }
}

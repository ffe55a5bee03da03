import Binding
import Foundation

// MARK: - Creating

extension RelationController {
  /// Creates a controller over the to-many relation `relation` of `owner`, in sections.
  ///
  /// The initial content is built now and not reported; every later change is.
  ///
  /// ```swift
  /// let albums = try RelationController(
  ///   \.albums, of: artist, filter: .matching { !$0.isLive },
  ///   sortedBy: [SortDescriptor(\.releaseDate)], sectionedBy: { $0.decade },
  ///   sectionName: { "\($0)s" }, observing: [\.title])
  /// ```
  ///
  /// - Parameters:
  ///   - relation: An `@Observed` array or set of objects of `owner`
  ///     (``RelationCollection``).
  ///   - owner: The object whose relation is shown; not retained.
  ///   - filter: Which elements to show (a closure or a Foundation `Predicate`); `nil` shows
  ///     all.
  ///   - sortedBy: Sort comparators (`SortDescriptor`, `KeyPathComparator`), first decides;
  ///     ties keep relation order (source order for an array, order of entry for a set).
  ///     Empty: relation order.
  ///   - sectionedBy: The section key of an element; sections are ordered by key.
  ///   - sectionName: The display name of a section; by default `String(describing: key)`.
  ///   - observing: Attributes whose change is reported as an update, besides what the
  ///     functions read.
  ///   - reportsUpdatesOf: Which changes of an element that stays in place are updates: by
  ///     default everything the functions and observed attributes read
  ///     (``RelationUpdates/everythingRead``), or ``RelationUpdates/observedAttributes`` only.
  ///   - delivery: Where change sets are delivered; by default the creating code's isolation.
  ///   - isolation: The creating code's isolation; leave the default.
  /// - Throws: ``RelationConfigurationError`` if the owner announced its deletion, a current
  ///   element's section key is not equal to itself (a NaN), a predicate throws for a current
  ///   element, or a function reads no `@Observed` property (see the class overview).
  /// - Complexity: O(n log n), where *n* is the number of elements of the relation.
  @inlinable
  public convenience init<Owner: ObservableModel, Relation: RelationCollection>(
    _ relation: KeyPath<Owner, Relation>, of owner: Owner,
    filter: Filter? = nil,
    sortedBy: [any SortComparator<Element>] = [],
    sectionedBy: @escaping (Element) -> SectionKey,
    sectionName: @escaping (SectionKey) -> String = { String(describing: $0) },
    observing: [PartialKeyPath<Element>] = [],
    reportsUpdatesOf: RelationUpdates = .everythingRead,
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation
  ) throws(RelationConfigurationError) where Relation.Element == Element {
    try self.init(
      relation, owner: owner,
      config: Configuration(
        filter: filter, sortedBy: sortedBy, sectionedBy: sectionedBy, sectionName: sectionName,
        observing: observing, reportsUpdatesOf: reportsUpdatesOf),
      permanentSectionKey: nil, delivery: delivery, isolation: isolation)
  }
}

extension RelationController where SectionKey == Unsectioned {
  /// Creates a controller over the to-many relation `relation` of `owner`, in one section.
  ///
  /// The one section exists always, even when empty, and is never inserted or deleted.
  ///
  /// ```swift
  /// let albums = try RelationController(
  ///   \.albums, of: artist, sortedBy: [SortDescriptor(\.releaseDate)])
  /// let tags = try RelationController(
  ///   \.tags, of: photo, filter: .matching(#Predicate { $0.isPublic }))
  /// ```
  ///
  /// - Parameters:
  ///   - relation: An `@Observed` array or set of objects of `owner`
  ///     (``RelationCollection``).
  ///   - owner: The object whose relation is shown; not retained.
  ///   - filter: Which elements to show (a closure or a Foundation `Predicate`); `nil` shows
  ///     all.
  ///   - sortedBy: Sort comparators, first decides; ties keep relation order. Empty: relation
  ///     order (an element inserted at index 0 of an array appears first).
  ///   - observing: Attributes whose change is reported as an update, besides what the
  ///     functions read.
  ///   - reportsUpdatesOf: Which changes of an element that stays in place are updates: by
  ///     default everything the filter, sort and observed attributes read
  ///     (``RelationUpdates/everythingRead``), or ``RelationUpdates/observedAttributes`` only.
  ///   - delivery: Where change sets are delivered; by default the creating code's isolation.
  ///   - isolation: The creating code's isolation; leave the default.
  /// - Throws: ``RelationConfigurationError`` if the owner announced its deletion, a predicate
  ///   throws for a current element, or a function reads no `@Observed` property.
  /// - Complexity: O(n log n), where *n* is the number of elements of the relation.
  @inlinable
  public convenience init<Owner: ObservableModel, Relation: RelationCollection>(
    _ relation: KeyPath<Owner, Relation>, of owner: Owner,
    filter: Filter? = nil,
    sortedBy: [any SortComparator<Element>] = [],
    observing: [PartialKeyPath<Element>] = [],
    reportsUpdatesOf: RelationUpdates = .everythingRead,
    delivery: ObservationDelivery = .automatic,
    isolation: (any Actor)? = #isolation
  ) throws(RelationConfigurationError) where Relation.Element == Element {
    try self.init(
      relation, owner: owner,
      config: Configuration(
        filter: filter, sortedBy: sortedBy, sectionedBy: { _ in Unsectioned() },
        observing: observing, reportsUpdatesOf: reportsUpdatesOf),
      permanentSectionKey: Unsectioned(), delivery: delivery, isolation: isolation)
  }
}

extension RelationController {
  @inlinable
  convenience init<Owner: ObservableModel, Relation: RelationCollection>(
    _ relation: KeyPath<Owner, Relation>, owner: Owner,
    config: Configuration, permanentSectionKey: SectionKey?,
    delivery: ObservationDelivery, isolation: (any Actor)?
  ) throws(RelationConfigurationError) where Relation.Element == Element {
    try self.init(
      owner: owner, relation: relation, read: { owner[keyPath: relation]._relationValue },
      config: config, permanentSectionKey: permanentSectionKey, delivery: delivery,
      isolation: isolation
    ) { controller in
      // Every write, even of an equal value: identity, not `==`, decides (and no O(n) `==`).
      // No copy of the value is kept between writes, so in-place edits of it do not copy it.
      owner.observe(
        relation, options: [.everySet, ._keepsNoValue], delivery: .synchronous,
        onDeletion: { [weak controller] in controller?._ownerEnded(deleted: true) }
      ) { [weak controller] change in
        guard let controller else { return }
        controller._enqueueRelation(
          .relation(change.newValue._relationValue, hint: controller._hint()))
      }
    }
  }

  /// The fine-grained edit being written on this thread, if it is one of this relation.
  @inlinable
  func _hint() -> _RelationHint? {
    guard let hint = _RelationHint.current, hint.owner == _owner, hint.relation == _relation
    else { return nil }
    return hint
  }
}

/// A configuration that a relation controller cannot honour: a controller being created is not
/// created, and one being reconfigured is left exactly as it was; the models are untouched. The
/// message says which.
///
/// ```swift
/// do {
///   try albums.reconfigure { $0.filter = .init(#Predicate { $0.label!.name == "EMI" }) }
/// } catch {
///   print(error)  // says which element made the predicate throw, and why
/// }
/// ```
public struct RelationConfigurationError: Error, CustomStringConvertible {
  /// What is wrong.
  public let message: String

  @inlinable
  init(_ message: String) { self.message = message }

  /// The message.
  @inlinable
  public var description: String { "RelationController: \(message)" }
}

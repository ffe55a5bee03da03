import Binding
import Foundation

/// What happened to a section or an element, as NSFetchedResultsController's delegate says it.
///
/// ```swift
/// switch (type, position, newPosition) {  // in the delegate's element callback
/// case (.insert, _, let new?):
///   tableView.insertRows(at: [IndexPath(new)], with: .automatic)
/// case (.delete, let old?, _):
///   tableView.deleteRows(at: [IndexPath(old)], with: .automatic)
/// case (.move, let old?, let new?):
///   tableView.moveRow(at: IndexPath(old), to: IndexPath(new))
/// case (.update, let old?, _):
///   tableView.reloadRows(at: [IndexPath(old)], with: .automatic)
/// default:
///   break  // not reached: each type comes with the positions it names
/// }
/// ```
public enum RelationChangeType: Hashable, Sendable {
  /// It appeared (at the new position).
  case insert
  /// It disappeared (from the old position).
  case delete
  /// The element moved from the old position to the new one.
  case move
  /// The element stayed in place (in the batch-update sense) and an observed attribute changed;
  /// for a section, its display name changed.
  case update
}

/// A receiver of a relation controller's changes, shaped like NSFetchedResultsController's
/// delegate: will change, section changes, element changes, did change, in that order.
///
/// Every method has a default that does nothing. Within one change set, section changes come
/// first (deletions, insertions, then renamed sections), then element changes: insertions,
/// deletions, moves, updates. Positions follow UITableView's batch-update rules (see
/// ``RelationChangeSet``): a deletion, a move's source and an update name the old position; an
/// insertion and a move's destination name the new one.
///
/// A delegate may change the relation or its elements in any of these callbacks: the change is
/// queued and comes as the next change set, after this one has reached every receiver (see
/// ``RelationController/onChange(_:)``); the callbacks of the current change set and the content
/// the delegate reads stay those of the current change set.
///
/// ```swift
/// final class AlbumList: RelationControllerDelegate {
///   func relationController(
///     _ controller: RelationController<Album, Int>, didChange album: Album,
///     at position: RowPosition?, for type: RelationChangeType, newPosition: RowPosition?
///   ) { print(type, position as Any, newPosition as Any) }
/// }
/// let list = AlbumList()
/// albums.delegate = list  // held weakly: keep `list`
/// ```
///
/// The Getting Started article drives a whole table view with a delegate (compiled and run by
/// the package's tests).
///
/// Swift infers `Element` and `SectionKey` from the methods you implement: write them as the
/// controller's type spells them. A controller made without `sectionedBy:` is a
/// `RelationController<Album, Unsectioned>`, so its delegate's methods take that type. A delegate
/// written for `RelationController<Album, Int>` and set on it does not compile, with a message
/// that does not say why:
/// `cannot assign value of type 'AlbumsDelegate' to type 'any RelationControllerDelegate<Album, Unsectioned>'`.
///
/// A conformance that implements none of the methods names the types
/// (`typealias Element = Album`, `typealias SectionKey = Int`); without them, the compiler says
/// `type 'AlbumsDelegate' does not conform to protocol 'RelationControllerDelegate'`, with the
/// note `protocol requires nested type 'Element'`. Every method has a default that does
/// nothing, so a method whose signature differs from the requirement's (another label, another
/// type) compiles and is never called: copy the signatures from here.
///
/// - Important: A main-actor type conforms with an isolated conformance
///   (`extension AlbumList: @MainActor RelationControllerDelegate`) and gets a controller that
///   delivers on the main actor (created on the main actor, or with `delivery: .mainActor`).
public protocol RelationControllerDelegate<Element, SectionKey>: AnyObject {
  /// The elements of the relation.
  associatedtype Element: ObservableModel
  /// The section key.
  associatedtype SectionKey: Hashable & Comparable

  /// A change set begins (UIKit: `beginUpdates`).
  ///
  /// - Parameter controller: The controller whose content changes.
  func relationControllerWillChangeContent(
    _ controller: RelationController<Element, SectionKey>)

  /// A section was inserted (at its new index), deleted (at its old index), or renamed (at its
  /// new index: a reconfiguration changed its display name; reload its header).
  ///
  /// - Parameters:
  ///   - controller: The controller whose content changes.
  ///   - section: The section: for a deletion, as it was; otherwise, as it is.
  ///   - index: The old index of a deleted section, the new index of an inserted or renamed
  ///     one.
  ///   - type: ``RelationChangeType/insert``, ``RelationChangeType/delete`` or, for a renamed
  ///     section, ``RelationChangeType/update``.
  func relationController(
    _ controller: RelationController<Element, SectionKey>,
    didChange section: RelationController<Element, SectionKey>.Section,
    atSectionIndex index: Int, for type: RelationChangeType)

  /// An element was inserted, deleted, moved or updated.
  ///
  /// - Parameters:
  ///   - controller: The controller whose content changes.
  ///   - element: The element.
  ///   - position: The old position (`nil` for an insertion).
  ///   - type: What happened.
  ///   - newPosition: The new position (for an insertion and a move; otherwise `nil`).
  func relationController(
    _ controller: RelationController<Element, SectionKey>, didChange element: Element,
    at position: RowPosition?, for type: RelationChangeType, newPosition: RowPosition?)

  /// The change set ended (UIKit: `endUpdates`); the content is now the new content.
  ///
  /// Moves whose element also changed are flagged in `changes.movedRows` (`changed`):
  /// reconfigure those cells at their new positions.
  ///
  /// - Parameters:
  ///   - controller: The controller whose content changed.
  ///   - changes: The whole change set.
  func relationController(
    _ controller: RelationController<Element, SectionKey>,
    didChangeContent changes: RelationChangeSet<Element>)
}

extension RelationControllerDelegate {
  /// Does nothing.
  ///
  /// - Parameter controller: The controller.
  @inlinable
  public func relationControllerWillChangeContent(
    _ controller: RelationController<Element, SectionKey>
  ) {}

  /// Does nothing.
  ///
  /// - Parameters:
  ///   - controller: The controller.
  ///   - section: The section.
  ///   - index: Its index.
  ///   - type: What happened.
  @inlinable
  public func relationController(
    _ controller: RelationController<Element, SectionKey>,
    didChange section: RelationController<Element, SectionKey>.Section,
    atSectionIndex index: Int, for type: RelationChangeType
  ) {}

  /// Does nothing.
  ///
  /// - Parameters:
  ///   - controller: The controller.
  ///   - element: The element.
  ///   - position: The old position.
  ///   - type: What happened.
  ///   - newPosition: The new position.
  @inlinable
  public func relationController(
    _ controller: RelationController<Element, SectionKey>, didChange element: Element,
    at position: RowPosition?, for type: RelationChangeType, newPosition: RowPosition?
  ) {}

  /// Does nothing.
  ///
  /// - Parameters:
  ///   - controller: The controller.
  ///   - changes: The change set.
  @inlinable
  public func relationController(
    _ controller: RelationController<Element, SectionKey>,
    didChangeContent changes: RelationChangeSet<Element>
  ) {}
}

/// The change sets of a relation controller as an asynchronous sequence.
///
/// Made by ``RelationController/changes``. It never drops a change set and finishes when the
/// controller is released. The controller's content may be ahead of a change set by the time
/// a consumer reads it: keep your own copy with ``RelationChangeSet/apply(to:)``.
///
/// ```swift
/// var content = albums.sections.map { $0.objects }
/// for await changes in albums.changes { changes.apply(to: &content) }
/// ```
public struct RelationChangeSequence<Model>: AsyncSequence {
  /// A change set.
  public typealias Element = RelationChangeSet<Model>
  /// Iteration never throws.
  public typealias Failure = Never

  @usableFromInline
  let base: AsyncStream<_Transfer<RelationChangeSet<Model>>>
  /// The controller, held weakly: a sequence that nobody iterates keeps nothing alive.
  @usableFromInline
  weak var owner: (any _StreamOwner)?

  /// Creates the iterator, which keeps the controller working while it lives.
  ///
  /// - Returns: An iterator over the change sets.
  @inlinable
  public func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(base: base.makeAsyncIterator(), owner: owner)
  }

  /// The iterator of ``RelationChangeSequence``: while it lives (a `for await` loop running),
  /// it keeps the controller working, as a kept `ObservationToken` of `onChange` does.
  public struct AsyncIterator: AsyncIteratorProtocol {
    @usableFromInline
    var base: AsyncStream<_Transfer<RelationChangeSet<Model>>>.AsyncIterator
    /// The controller, held while the iteration runs.
    @usableFromInline
    let owner: (any _StreamOwner)?

    /// The next change set, or `nil` once the iterating task is cancelled (or, for an
    /// iteration begun after the controller was released, once the change sets it buffered
    /// are read).
    ///
    /// - Returns: The next change set.
    @inlinable
    public mutating func next() async -> RelationChangeSet<Model>? {
      await base.next()?.value
    }

    @inlinable
    init(
      base: AsyncStream<_Transfer<RelationChangeSet<Model>>>.AsyncIterator,
      owner: (any _StreamOwner)?
    ) {
      self.base = base
      self.owner = owner
    }
  }

  @inlinable
  init(base: AsyncStream<_Transfer<RelationChangeSet<Model>>>, owner: any _StreamOwner) {
    self.base = base
    self.owner = owner
  }
}

/// A controller whose change streams and handlers can end (non-generic, for the `@Sendable`
/// closures that end them).
@usableFromInline
protocol _StreamOwner: AnyObject, Sendable {
  func _endStream(_ id: UInt64)
  func _removeHandler(_ id: UInt64)
  func _ownerEnded(deleted: Bool)
}

extension RelationController: _StreamOwner {
  @inlinable
  func _endStream(_ id: UInt64) {
    _lock.withLock { state in state.streams[id] = nil }
  }

  @inlinable
  func _removeHandler(_ id: UInt64) {
    // The handler is released after the lock (what it captured may have a deinitialiser).
    _ = _lock.withLock { state in
      defer { state.handlers.removeAll { $0.id == id } }
      return state.handlers.filter { $0.id == id }
    }
  }
}

/// Forgets the stream `id` of `owner` when its consumer stops.
@inlinable
func _onTermination<Value>(
  of continuation: AsyncStream<Value>.Continuation, _ owner: any _StreamOwner, _ id: UInt64
) {
  continuation.onTermination = { [weak owner] _ in owner?._endStream(id) }
}

extension RelationController {
  /// The delegate, held weakly.
  ///
  /// ```swift
  /// albums.delegate = albumList
  /// ```
  ///
  /// - Complexity: O(1).
  @inlinable
  public var delegate: (any RelationControllerDelegate<Element, SectionKey>)? {
    get { _lock.withLock { $0.delegate } }
    set { _lock.withLock { $0.delegate = newValue } }
  }

  /// Calls `handler` with each change set, in the controller's delivery context, after the
  /// content changed (reading the controller there gives the content of that change set).
  ///
  /// ```swift
  /// let token = albums.onChange { changes in
  ///   print(changes.insertedRows, changes.deletedRows)
  /// }
  /// // keep `token` as long as you want to hear changes (a stored property)
  /// ```
  ///
  /// The rule is the same as for every registration of the package: the handler is called
  /// until the token is cancelled **or released**. The token keeps the controller working:
  /// a controller kept by nothing but its tokens (and running ``changes`` loops) still delivers,
  /// and ends when the last of them goes.
  ///
  /// - Parameter handler: Receives each change set.
  /// - Returns: A token that ends the registration when cancelled or released; after
  ///   `ObservationToken.cancel()` returns in the delivery context (a receiver, or any code
  ///   there), the handler is not called again, even within a delivery that is under way. Cancelled
  ///   from another thread while a change set is being delivered, it may still receive that one.
  ///   Either way, `cancel()` releases the handler (and what it captured) at once, unless it is
  ///   running: no delivery under way keeps it.
  /// - Complexity: O(1).
  /// - Note: Re-entrancy: a receiver (this handler, another one, the delegate) may change the
  ///   relation or its elements while it receives a change set. The change is queued, not
  ///   delivered inside the current delivery: every receiver of the current change set still
  ///   gets it, in order, and reads the content of that change set; then the change comes as
  ///   the next change set (one per transaction, in order), in the same delivery context and,
  ///   with synchronous delivery, before the write that started the delivery returns.
  @inlinable
  public func onChange(
    _ handler: @escaping (RelationChangeSet<Element>) -> Void
  ) -> ObservationToken {
    let id = _lock.withLock { state -> UInt64 in
      state.nextHandlerID += 1
      state.handlers.append((state.nextHandlerID, handler))
      return state.nextHandlerID
    }
    // Through the non-generic protocol: a `@Sendable` closure must capture no generic metatype.
    // Held strongly: a kept token keeps the controller working (released at the end, which
    // cancelling or releasing the token brings).
    let owner: any _StreamOwner = self
    return ObservationToken { owner._removeHandler(id) }
  }

  /// The change sets from now on, as an asynchronous sequence (unbounded buffer).
  ///
  /// ```swift
  /// for await changes in albums.changes { print(changes) }
  /// ```
  ///
  /// A running iteration (its iterator) keeps the controller working, as a kept `onChange`
  /// token does; the sequence itself, not iterated, keeps nothing alive.
  ///
  /// - Complexity: O(1) to create.
  @inlinable
  public var changes: RelationChangeSequence<Element> {
    let (stream, continuation) = AsyncStream<_Transfer<RelationChangeSet<Element>>>.makeStream(
      bufferingPolicy: .unbounded)
    let id = _lock.withLock { state -> UInt64 in
      state.nextHandlerID += 1
      state.streams[state.nextHandlerID] = continuation
      return state.nextHandlerID
    }
    _onTermination(of: continuation, self, id)
    return RelationChangeSequence(base: stream, owner: self)
  }

  /// Hands a change set to the delegate, the handlers and the streams, outside the lock.
  @inlinable
  func _deliver(_ delivery: consuming _Delivery) {
    _contentChanged()
    // The section names are user code: asked here, in the delivery context, with no lock held.
    // Set in the delivery's own change set: a copy of it would retain each of its arrays.
    delivery.changes._deletedSectionNames = delivery.deletedSectionKeys.map(delivery.sectionName)
    delivery.changes._insertedSectionNames = delivery.insertedSectionKeys.map(
      delivery.sectionName)
    // The handlers are fetched one by one, by id, each under the lock just before it is
    // called, so that the delivery holds no handler but the one running: a handler cancelled
    // meanwhile (by a receiver, or by another thread) is neither called nor kept alive. Those
    // registered after the delivery began wait for the next change set.
    var handler: (id: UInt64, call: (RelationChangeSet<Element>) -> Void)?
    let (delegate, last, streams) = _lock.withLock { state in
      // With a delegate, the first handler is fetched after it ran (it may cancel it).
      if state.delegate == nil { handler = state.handlers.first }
      return (
        state.delegate, state.handlers.last?.id ?? 0,
        state.streams.isEmpty ? [] : Array(state.streams.values)
      )
    }
    if let delegate {
      _notify(delegate, delivery.changes, delivery)
      handler = _lock.withLock { $0.handlers.first { $0.id <= last } }
    }
    while let running = handler.take() {
      running.call(delivery.changes)
      guard running.id < last else { break }
      handler = _lock.withLock { state in
        state.handlers.first { $0.id > running.id && $0.id <= last }
      }
    }
    for stream in streams { stream.yield(_Transfer(delivery.changes)) }
  }

  @inlinable
  func _notify(
    _ delegate: any RelationControllerDelegate<Element, SectionKey>,
    _ changes: RelationChangeSet<Element>, _ delivery: _Delivery
  ) {
    delegate.relationControllerWillChangeContent(self)
    for (ordinal, index) in changes._deletedSections.enumerated() {
      let section = Section(
        key: delivery.deletedSectionKeys[ordinal], name: changes.deletedSectionNames[ordinal],
        objects: changes.deletedSectionElements[ordinal])
      delegate.relationController(self, didChange: section, atSectionIndex: index, for: .delete)
    }
    for (ordinal, index) in changes._insertedSections.enumerated() {
      let section = Section(
        key: delivery.insertedSectionKeys[ordinal], name: changes.insertedSectionNames[ordinal],
        objects: changes.insertedSectionElements[ordinal])
      delegate.relationController(self, didChange: section, atSectionIndex: index, for: .insert)
    }
    for index in changes._renamedSections {
      delegate.relationController(
        self, didChange: section(at: index), atSectionIndex: index, for: .update)
    }
    for (position, element) in zip(changes.insertedRows, changes.insertedElements) {
      delegate.relationController(
        self, didChange: element, at: nil, for: .insert, newPosition: position)
    }
    for (position, element) in zip(changes.deletedRows, changes.deletedElements) {
      delegate.relationController(
        self, didChange: element, at: position, for: .delete, newPosition: nil)
    }
    for (move, element) in zip(changes.movedRows, changes.movedElements) {
      delegate.relationController(
        self, didChange: element, at: move.from, for: .move, newPosition: move.to)
    }
    for (position, element) in zip(changes.updatedRows, changes.updatedElements) {
      delegate.relationController(
        self, didChange: element, at: position, for: .update, newPosition: nil)
    }
    delegate.relationController(self, didChangeContent: changes)
  }
}

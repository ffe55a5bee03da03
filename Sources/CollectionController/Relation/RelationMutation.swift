import Binding
import Foundation

/// One edit of an array relation at indexes, like KVO's mutable array proxy.
///
/// Apply it with ``Binding/ObservableModel/apply(_:to:)``: the relation property is written once
/// (its observers hear the new array as usual), and relation controllers over it learn the kind
/// of edit and its indexes, so their own work is O(log n) instead of diffing the whole array.
///
/// ```swift
/// artist.apply(.insert(album, at: 0), to: \.albums)
/// artist.apply(.move(from: 3, to: 0), to: \.albums)
/// ```
///
/// Indexes follow `Array`: an index out of range traps with a message.
public enum RelationMutation<Element: AnyObject> {
  /// Inserts `element` at `index` (`0...count`).
  case insert(Element, at: Int)
  /// Removes the element at `index` (`0..<count`).
  case remove(at: Int)
  /// Replaces the element at `index` (`0..<count`) with `element`.
  case replace(at: Int, with: Element)
  /// Removes the element at `from` and inserts it so that it ends up at `to` (both `0..<count`),
  /// like a table view's `moveRow(at:to:)` (not a swap).
  case move(from: Int, to: Int)
}

/// What a fine-grained edit did, handed to the relation's observers on the writing thread.
///
/// Elements are type-erased so that one per-thread slot serves every relation type. A hint is
/// set (Binding's `_withEditHint`) around one synchronous write and read only by observers
/// that run synchronously inside that write, on the same thread: it never crosses threads.
@usableFromInline
final class _RelationHint {
  @usableFromInline
  enum Edit {
    case insert(AnyObject, at: Int)
    case remove(AnyObject, at: Int)
    case replace(at: Int, old: AnyObject, new: AnyObject)
    case move(AnyObject, from: Int, to: Int)
    case setInsert(AnyObject)
    case setRemove(AnyObject)
  }

  @usableFromInline
  let owner: ObjectIdentifier
  @usableFromInline
  let relation: AnyKeyPath
  @usableFromInline
  let edit: Edit
  @usableFromInline
  let oldCount: Int
  @usableFromInline
  let newCount: Int
  /// Buffer identities of the array before and after the edit (`nil` for sets), so that an
  /// observer can tell that the change it hears is exactly this edit.
  @usableFromInline
  let oldBase: _BufferIdentity
  @usableFromInline
  let newBase: _BufferIdentity

  @inlinable
  init(
    owner: ObjectIdentifier, relation: AnyKeyPath, edit: Edit, oldCount: Int, newCount: Int,
    oldBase: _BufferIdentity, newBase: _BufferIdentity
  ) {
    self.owner = owner
    self.relation = relation
    self.edit = edit
    self.oldCount = oldCount
    self.newCount = newCount
    self.oldBase = oldBase
    self.newBase = newBase
  }

  /// The hint of the write being made on this thread, if it is a fine-grained edit.
  @inlinable
  static var current: _RelationHint? { _currentEditHint as? _RelationHint }
}

extension ObservableModel {
  /// Applies one fine-grained edit to the array relation at `relation`.
  ///
  /// The property is written once, so every observer hears the new array as usual; relation
  /// controllers over it also learn what the edit was and update in O(log n) instead of
  /// diffing. The array is edited in place when nothing else holds it (relation controllers
  /// keep no copy); when something does (your own copy, an observer of the property, which
  /// keeps the old value for its changes, or a model bridged to Swift Observation), it is
  /// copied first, as any edit of a shared array is. To take the array out, the property is
  /// written with an empty array that no observer hears (only when `relation` reads one
  /// `@Observed` property of this object); if `relation` is a computed property with a setter of
  /// its own, that setter runs with the empty array first, then with the result.
  ///
  /// ```swift
  /// artist.apply(.insert(album, at: 0), to: \.albums)
  /// ```
  ///
  /// - Parameters:
  ///   - mutation: The edit.
  ///   - relation: The `@Observed` array of objects to edit.
  /// - Precondition: The edit's indexes are in range, as for `Array` (a message names the
  ///   index and the range).
  /// - Complexity: O(log n) for each relation controller, where *n* is the array's count; for
  ///   the array, what the edit costs an `Array` (an append is amortized O(1), an insert or
  ///   remove shifts the tail), plus a copy when the array is shared (see above).
  @inlinable
  public func apply<Element: AnyObject>(
    _ mutation: RelationMutation<Element>, to relation: ReferenceWritableKeyPath<Self, [Element]>
  ) {
    let oldCount = self[keyPath: relation].count
    // Checked before anything is touched: a trap leaves the relation as it was.
    switch mutation {
    case .insert(_, let index):
      _require(
        index >= 0 && index <= oldCount,
        "RelationMutation.insert: index \(index) is out of range 0...\(oldCount)")
    case .remove(let index):
      _require(
        index >= 0 && index < oldCount,
        "RelationMutation.remove: index \(index) is out of range 0..<\(oldCount)")
    case .replace(let index, _):
      _require(
        index >= 0 && index < oldCount,
        "RelationMutation.replace: index \(index) is out of range 0..<\(oldCount)")
    case .move(let from, let to):
      _require(
        from >= 0 && from < oldCount,
        "RelationMutation.move: source index \(from) is out of range 0..<\(oldCount)")
      _require(
        to >= 0 && to < oldCount,
        "RelationMutation.move: destination index \(to) is out of range 0..<\(oldCount)")
    }
    var array = _takeForEditing(relation, leaving: [])
    let oldBase = _bufferIdentity(array)
    let edit: _RelationHint.Edit
    switch mutation {
    case .insert(let element, let index):
      array.insert(element, at: index)
      edit = .insert(element, at: index)
    case .remove(let index):
      let removed = array.remove(at: index)
      edit = .remove(removed, at: index)
    case .replace(let index, let element):
      let old = array[index]
      array[index] = element
      edit = .replace(at: index, old: old, new: element)
    case .move(let from, let to):
      let element = array.remove(at: from)
      array.insert(element, at: to)
      edit = .move(element, from: from, to: to)
    }
    let hint = _RelationHint(
      owner: ObjectIdentifier(self), relation: relation, edit: edit, oldCount: oldCount,
      newCount: array.count, oldBase: oldBase, newBase: _bufferIdentity(array))
    _withEditHint(hint) { self[keyPath: relation] = array }
  }

  /// Inserts `element` into the array relation at `relation`, at `index`.
  ///
  /// ```swift
  /// artist.insert(album, at: 0, into: \.albums)
  /// ```
  ///
  /// - Parameters:
  ///   - element: The element to insert.
  ///   - index: Where to insert it, in `0...count`.
  ///   - relation: The `@Observed` array of objects.
  /// - Complexity: See ``Binding/ObservableModel/apply(_:to:)``.
  @inlinable
  public func insert<Element: AnyObject>(
    _ element: Element, at index: Int, into relation: ReferenceWritableKeyPath<Self, [Element]>
  ) {
    apply(.insert(element, at: index), to: relation)
  }

  /// Removes and returns the element at `index` of the array relation at `relation`.
  ///
  /// ```swift
  /// let removed = artist.remove(at: 2, from: \.albums)
  /// ```
  ///
  /// - Parameters:
  ///   - index: The index of the element, in `0..<count`.
  ///   - relation: The `@Observed` array of objects.
  /// - Returns: The removed element.
  /// - Complexity: See ``Binding/ObservableModel/apply(_:to:)``.
  @discardableResult
  @inlinable
  public func remove<Element: AnyObject>(
    at index: Int, from relation: ReferenceWritableKeyPath<Self, [Element]>
  ) -> Element {
    let count = self[keyPath: relation].count
    _require(
      index >= 0 && index < count,
      "RelationMutation.remove: index \(index) is out of range 0..<\(count)")
    let element = self[keyPath: relation][index]
    apply(.remove(at: index), to: relation)
    return element
  }

  /// Removes the first occurrence of `element` (the same instance: identity, not `==`) from the
  /// array relation at `relation`, and returns its index.
  ///
  /// ```swift
  /// artist.remove(album, from: \.albums)  // instead of remove(at: firstIndex { $0 === album }!)
  /// ```
  ///
  /// - Parameters:
  ///   - element: The element to remove.
  ///   - relation: The `@Observed` array of objects.
  /// - Returns: The index it had, or `nil` (and nothing is written) if it is not in the array.
  /// - Complexity: O(n) to find it, then as ``Binding/ObservableModel/apply(_:to:)``.
  @discardableResult
  @inlinable
  public func remove<Element: AnyObject>(
    _ element: Element, from relation: ReferenceWritableKeyPath<Self, [Element]>
  ) -> Int? {
    guard let index = self[keyPath: relation].firstIndex(where: { $0 === element }) else {
      return nil
    }
    apply(.remove(at: index), to: relation)
    return index
  }

  /// Inserts `element` into the set relation at `relation`, if no equal element is there.
  ///
  /// Relation controllers over the set learn which object entered and update in O(log n).
  ///
  /// ```swift
  /// artist.insert(album, into: \.albumSet)
  /// ```
  ///
  /// - Parameters:
  ///   - element: The element to insert.
  ///   - relation: The `@Observed` set of objects.
  /// - Returns: Whether the element was inserted (`false`, and nothing written, if the set
  ///   already held an equal element).
  /// - Complexity: O(log n) for each relation controller, where *n* is the set's count; for
  ///   the set, amortized O(1), plus a copy when the set is shared (as for
  ///   ``Binding/ObservableModel/apply(_:to:)``).
  @discardableResult
  @inlinable
  public func insert<Element: AnyObject & Hashable>(
    _ element: Element, into relation: ReferenceWritableKeyPath<Self, Set<Element>>
  ) -> Bool {
    guard !self[keyPath: relation].contains(element) else { return false }
    var set = _takeForEditing(relation, leaving: [])
    let oldCount = set.count
    set.insert(element)
    let hint = _RelationHint(
      owner: ObjectIdentifier(self), relation: relation, edit: .setInsert(element),
      oldCount: oldCount, newCount: set.count, oldBase: nil, newBase: nil)
    _withEditHint(hint) { self[keyPath: relation] = set }
    return true
  }

  /// Removes the member equal to `element` from the set relation at `relation`.
  ///
  /// ```swift
  /// artist.remove(album, from: \.albumSet)
  /// ```
  ///
  /// - Parameters:
  ///   - element: The element to remove.
  ///   - relation: The `@Observed` set of objects.
  /// - Returns: The removed member, or `nil` (and nothing written) if the set held no equal
  ///   element.
  /// - Complexity: O(log n) for each relation controller, where *n* is the set's count; for
  ///   the set, O(1), plus a copy when the set is shared (as for
  ///   ``Binding/ObservableModel/apply(_:to:)``).
  @discardableResult
  @inlinable
  public func remove<Element: AnyObject & Hashable>(
    _ element: Element, from relation: ReferenceWritableKeyPath<Self, Set<Element>>
  ) -> Element? {
    guard self[keyPath: relation].contains(element) else { return nil }
    var set = _takeForEditing(relation, leaving: [])
    let oldCount = set.count
    // Present: checked just above, and nothing ran in between.
    let removed = set.remove(element)!
    let hint = _RelationHint(
      owner: ObjectIdentifier(self), relation: relation, edit: .setRemove(removed),
      oldCount: oldCount, newCount: set.count, oldBase: nil, newBase: nil)
    _withEditHint(hint) { self[keyPath: relation] = set }
    return removed
  }
}

extension ObservableModel {
  /// The value of `relation`, taken out of the property so that the caller holds the only
  /// reference the property had and can edit it in place; the caller writes it back.
  ///
  /// The property is left holding `empty` for the duration, a write no observer hears. Only a
  /// relation that reads one `@Observed` property of this object is taken out; the value of a
  /// path through other objects, or of a model bridged to Swift Observation (which would
  /// report the emptying write to Swift Observation), is only read, and the edit copies it.
  @inlinable
  func _takeForEditing<Value>(
    _ relation: ReferenceWritableKeyPath<Self, Value>, leaving empty: Value
  ) -> Value {
    if Self._bridgesSwiftObservation { return self[keyPath: relation] }
    let (value, isOwnProperty) = _readNotingOwnership(relation)
    if isOwnProperty {
      _withoutNotifications { self[keyPath: relation] = empty }
    }
    return value
  }
}

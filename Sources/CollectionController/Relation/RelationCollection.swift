import Binding
import Foundation

/// The collection types a to-many relation can be: an array or a set of objects.
///
/// A relation controller takes the relation as one key path, and its type says which it is:
///
/// ```swift
/// @Observed var albums: [Album]    // an array: ties and an unsorted controller keep its order
/// @Observed var tags: Set<Tag>     // a set: ties keep the order in which elements entered
/// let albumList = try RelationController(\.albums, of: artist)
/// let tagList = try RelationController(\.tags, of: photo)
/// ```
///
/// Only `Array` and `Set` conform; the requirement is the package's own.
public protocol RelationCollection: Sequence where Element: AnyObject {
  /// The collection as a relation controller reads it.
  var _relationContent: _RelationContent<Element> { get }
}

/// A relation's value as a relation controller reads it (see ``RelationCollection``).
public struct _RelationContent<Element: AnyObject> {
  @usableFromInline
  let value: _RelationValue<Element>

  @inlinable
  init(value: _RelationValue<Element>) {
    self.value = value
  }
}

extension Array: RelationCollection where Element: AnyObject {
  /// The array as a relation controller reads it.
  @inlinable
  public var _relationContent: _RelationContent<Element> { _RelationContent(value: .array(self)) }
}

extension Set: RelationCollection where Element: AnyObject {
  /// The set as a relation controller reads it.
  @inlinable
  public var _relationContent: _RelationContent<Element> { _RelationContent(value: .set(self)) }
}

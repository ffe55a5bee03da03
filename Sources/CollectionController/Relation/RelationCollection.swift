import Binding
import Foundation

/// The collection types a to-many relation can be: an array or a set of objects.
///
/// A relation controller takes the relation as one key path, and its type says which it is:
///
/// ```swift
/// final class Artist: ObservableModel {
///   let observation = ObservationStorage()
///   @Observed var albums: [Album] = []  // an array: ties and no sort keep its order
///   @Observed var albumSet: Set<Album> = []  // a set: ties keep the order of entry
/// }
/// let artist = Artist()
/// let albumList = try RelationController(\.albums, of: artist)
/// let albumSetList = try RelationController(\.albumSet, of: artist)
/// ```
///
/// `Array` and `Set` conform. The protocol has no requirements: a relation of another
/// conforming type is read as an array of its elements, in the order the sequence lists them.
public protocol RelationCollection: Sequence where Element: AnyObject {}

extension Array: RelationCollection where Element: AnyObject {}

extension Set: RelationCollection where Element: AnyObject {}

extension RelationCollection {
  /// The relation as a controller reads it: an array as it is, a set with its `Hashable` element
  /// type erased, another sequence as an array of its elements.
  ///
  /// In a client's code, specialised for the relation's type, the array case is decided at
  /// compile time; the set case is one cast to `_SetRelation`, which supplies the `Hashable`
  /// conformance that a `RelationCollection` does not name.
  @inlinable
  var _relationValue: _RelationValue<Element> {
    if let array = self as? [Element] { return .array(array) }
    if let set = self as? any _SetRelation<Element> { return set._setRelationValue }
    return .array(Array(self))
  }
}

/// A set of objects, whose value a controller reads with its `Hashable` element type erased.
@usableFromInline
protocol _SetRelation<Member> {
  /// The element type.
  associatedtype Member: AnyObject
  /// The set as a controller reads it.
  var _setRelationValue: _RelationValue<Member> { get }
}

extension Set: _SetRelation where Element: AnyObject {
  /// The set as a controller reads it.
  @inlinable
  var _setRelationValue: _RelationValue<Element> { .set(self) }
}

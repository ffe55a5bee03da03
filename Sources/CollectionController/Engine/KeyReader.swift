import Foundation

/// Reads one key of elements into its store (see `_SortKeys`).
@usableFromInline
class _KeyReader<Element> {
  /// Where the key is kept.
  @usableFromInline
  let keys: any _KeyStore

  @inlinable
  init(keys: any _KeyStore) { self.keys = keys }

  @inlinable
  func stage(_ element: Element) { fatalError("abstract") }
  @inlinable
  func keep(_ element: Element, at slot: Int32) { fatalError("abstract") }
  @inlinable
  func read(_ element: Element) { fatalError("abstract") }
}

/// Reads a key of one type through a closure: a ``SortKey``'s, which calls the getter directly,
/// or one reading a `SortDescriptor`'s key path. Its operations are closures made in its
/// initialiser, which runs specialised for the key's type: overrides of a generic class would
/// run its generic code.
@usableFromInline
final class _ClosureKeyReader<Element>: _KeyReader<Element> {
  @usableFromInline
  let _stage: (Element) -> Void
  @usableFromInline
  let _keep: (Element, Int32) -> Void
  @usableFromInline
  let _read: (Element) -> Void

  @inlinable
  init<Store: _TypedKeyStore>(_ read: @escaping (Element) -> Store.Value, _ store: Store) {
    _stage = { store.staged = read($0) }
    _keep = { store.store(read($0), at: $1) }
    _read = { _ = read($0) }
    super.init(keys: store)
  }

  @inlinable
  override func stage(_ element: Element) { _stage(element) }
  @inlinable
  override func keep(_ element: Element, at slot: Int32) { _keep(element, slot) }
  @inlinable
  override func read(_ element: Element) { _read(element) }

  /// A reader keeping the values `read` reads, in the store written for their type, or `nil`
  /// when they cannot be kept (a type that is not `_KeptComparable`).
  @inlinable
  static func kept<Value: Comparable>(
    _ read: @escaping @Sendable (Element) -> Value, ascending: Bool
  ) -> _KeyReader<Element>? {
    if let read = read as? @Sendable (Element) -> Int {
      return _ClosureKeyReader(read, _IntKeys(ascending: ascending))
    }
    if let read = read as? @Sendable (Element) -> String {
      return _ClosureKeyReader(read, _StringKeys(ascending: ascending))
    }
    if let read = read as? @Sendable (Element) -> Double {
      return _ClosureKeyReader(read, _DoubleKeys(ascending: ascending))
    }
    guard Value.self is any _KeptComparable.Type else { return nil }
    return _ClosureKeyReader(read, _ComparableKeys<Value>(ascending: ascending))
  }

  /// `kept(_:ascending:)` for optional values (`nil` first).
  @inlinable
  static func keptOptional<Wrapped: Comparable>(
    _ read: @escaping @Sendable (Element) -> Wrapped?, ascending: Bool
  ) -> _KeyReader<Element>? {
    if let read = read as? @Sendable (Element) -> Int? {
      return _ClosureKeyReader(read, _OptionalIntKeys(ascending: ascending))
    }
    if let read = read as? @Sendable (Element) -> String? {
      return _ClosureKeyReader(read, _OptionalStringKeys(ascending: ascending))
    }
    guard Wrapped.self is any _KeptComparable.Type else { return nil }
    return _ClosureKeyReader(read, _OptionalComparableKeys<Wrapped>(ascending: ascending))
  }
}

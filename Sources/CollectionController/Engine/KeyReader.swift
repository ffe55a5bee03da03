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

/// Reads a key of one type through a closure, one reading a `SortDescriptor`'s key path. Its
/// operations are closures made in its
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
}

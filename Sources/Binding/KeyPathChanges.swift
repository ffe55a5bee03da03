/// The changes of one key path of one model, as an asynchronous sequence.
///
/// Made by ``ObservableModel/changes(for:options:)``. It never drops a change, finishes when
/// the model is deallocated or deleted, and ends its observation when iteration stops.
///
/// ```swift
/// for await change in user.changes(for: \.name, options: .initial) {
///   print(change.newValue)
/// }
/// ```
public struct KeyPathChanges<Root: ObservableModel, Value>: AsyncSequence {
  /// A change of the key path.
  public typealias Element = KeyPathChange<Root, Value>
  /// Iteration never throws.
  public typealias Failure = Never

  let base: AsyncStream<_Transfer<Element>>

  /// Creates the iterator.
  ///
  /// - Returns: An iterator over the changes.
  public func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(base: base.makeAsyncIterator())
  }

  /// The iterator of ``KeyPathChanges``.
  public struct AsyncIterator: AsyncIteratorProtocol {
    var base: AsyncStream<_Transfer<Element>>.AsyncIterator

    /// The next change, or `nil` once the observation ended.
    ///
    /// - Returns: The next change.
    public mutating func next() async -> Element? {
      await base.next()?.value
    }
  }
}

@testable import CollectionController

// What only the engine tests use: transactions on an index in one call, and the index and
// change-set builder operations that the controller composes from smaller steps.

extension _OrderedIndex {
  /// Runs one transaction: touches `touched`, removes them all, inserts again those that
  /// `placement` places, and returns the change set (`nil` if nothing visible changed).
  ///
  /// - Parameters:
  ///   - touched: The elements whose membership, keys or observed attributes may have changed,
  ///     with whether observed attributes changed. Elements not in the index may be listed.
  ///   - placement: The section key and sequence number of an element that belongs in the index
  ///     after the transaction, or `nil` for one that does not (left the relation or the filter).
  /// - Complexity: O(k log n + k log k) for *k* touched elements.
  mutating func applyTransaction(
    touching touched: [(element: Element, changedAttributes: Bool)],
    placement: (Element) -> (sectionKey: SectionKey, sequence: UInt64)?
  ) -> RelationChangeSet<Element>? {
    var builder = _ChangeSetBuilder(before: self)
    for (element, changed) in touched {
      builder.touch(element, changedAttributes: changed, in: self)
    }
    for (element, _) in touched {
      remove(ObjectIdentifier(element))
    }
    for (element, _) in touched where !contains(ObjectIdentifier(element)) {
      if let place = placement(element) {
        insert(element, sectionKey: place.sectionKey, sequence: place.sequence)
      }
    }
    return builder.finish(after: self)
  }

  /// Removes the elements with identities `ids` (those in the index), without comparing
  /// elements, then at once the sections they left empty: `detach(contentsOf:)`, then
  /// `removeDetached()`.
  ///
  /// - Complexity: O(k log n) for k identities, plus O(s) once if a section disappears.
  mutating func remove(contentsOf ids: some Sequence<ObjectIdentifier>) {
    detach(contentsOf: ids)
    removeDetached()
  }
}

extension _ChangeSetBuilder {
  /// Finishes the transaction on the modified `index`.
  ///
  /// - Parameter oneElementShortcut: Whether a transaction that touched one element takes the
  ///   shortcut (`_finishOne`); `false` only to test that both give the same change set.
  /// - Returns: The change set, or `nil` if nothing visible changed.
  /// - Complexity: O(k log n + k log k) for *k* touched elements.
  mutating func finish(
    after index: borrowing _OrderedIndex<Element, SectionKey>, oneElementShortcut: Bool = true
  ) -> RelationChangeSet<Element>? {
    var changes = RelationChangeSet<Element>()
    guard finish(after: index, oneElementShortcut: oneElementShortcut, into: &changes) else {
      return nil
    }
    return changes
  }
}

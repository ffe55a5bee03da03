/// The events of one transaction, in delivery order: deletions first, then one update per
/// object that changed and was not deleted.
struct _Batch: Sendable {
  var deletions: [_PendingDeletion] = []
  var updates: [_PendingUpdate] = []
  /// Index in `updates` by dependency identity, to merge an object's changes.
  var updateIndex: [ObjectIdentifier: Int] = [:]

  var isEmpty: Bool { deletions.isEmpty && updates.isEmpty }

  mutating func append(_ deletion: _PendingDeletion) { deletions.append(deletion) }

  mutating func merge(
    _ changes: ChangedProperties<any ObservableModel>, of object: _Transfer<any ObservableModel>,
    for dependency: _Dependency
  ) {
    let key = ObjectIdentifier(dependency)
    if let index = updateIndex[key] {
      updates[index].changes.value.formUnion(changes)
    } else {
      updateIndex[key] = updates.count
      updates.append(
        _PendingUpdate(dependency: dependency, object: object, changes: _Transfer(changes)))
    }
  }

  /// The batch as delivered: an object deleted in the transaction is reported deleted only.
  func finished() -> _Batch {
    guard !deletions.isEmpty, !updates.isEmpty else { return self }
    let deleted = Set(deletions.map { ObjectIdentifier($0.dependency) })
    var batch = self
    batch.updates = updates.filter { !deleted.contains(ObjectIdentifier($0.dependency)) }
    batch.updateIndex = [:]
    return batch
  }
}

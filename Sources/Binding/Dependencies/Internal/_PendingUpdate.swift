/// The changes of one dependency recorded in an open transaction, merged across the changes of
/// the transaction.
struct _PendingUpdate: Sendable {
  let dependency: _Dependency
  let object: _Transfer<any ObservableModel>
  var changes: _Transfer<ChangedProperties<any ObservableModel>>
}

/// A deletion recorded in an open transaction (the object already left the set).
struct _PendingDeletion: Sendable {
  let dependency: _Dependency
  let object: _Transfer<any ObservableModel>
}

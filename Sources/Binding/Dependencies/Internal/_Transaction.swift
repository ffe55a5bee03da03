/// The transaction open on one thread: the events recorded so far.
struct _Transaction: Sendable {
  var batch = _Batch()
}

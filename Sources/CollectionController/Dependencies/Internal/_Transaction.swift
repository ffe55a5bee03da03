import Binding

/// The transaction open on one thread: the events recorded so far and the probe that reports
/// its end.
struct _Transaction: Sendable {
  var batch = _Batch()
  /// The token of the probe's coalesced observation; its callback closes the transaction.
  var probe: ObservationToken?
}

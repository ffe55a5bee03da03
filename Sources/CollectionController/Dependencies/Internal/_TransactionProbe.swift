import Binding

/// A private model whose one coalesced observation tells the tracker that a transaction ended.
///
/// The tracker writes `tick` when a transaction opens on a thread. Its observer is registered
/// with ``ObservationOptions/coalesced``: if no `coalesce` block is open on the thread, Binding
/// delivers the write at once, so the change that opened the transaction is a transaction of
/// its own; inside a block, Binding defers it to the end of the outermost block, where it is
/// delivered with the block's other coalesced changes. Either way the callback runs on the
/// thread that opened the transaction. A probe is created per transaction and touched only by
/// that thread.
final class _TransactionProbe: ObservableModel {
  let observation = ObservationStorage()
  @Observed var tick: UInt8 = 0
}

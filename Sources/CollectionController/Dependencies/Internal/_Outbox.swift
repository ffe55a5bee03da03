import Binding

/// A private model through which the tracker hands finished batches to the delivery context
/// the user chose, using Binding's own routing (synchronous, main actor, actor or queue, in
/// order).
///
/// Each write of `tick` makes the observation deliver once; that delivery takes the oldest
/// queued batch. `@unchecked Sendable` because `tick` is written only by the thread that holds
/// the tracker's pump (`_TrackerState.isPumping`, claimed and released under the tracker's
/// lock), so writes never overlap and each is ordered after the previous one by that lock.
final class _Outbox: ObservableModel, @unchecked Sendable {
  let observation = ObservationStorage()
  @Observed var tick: UInt = 0
}

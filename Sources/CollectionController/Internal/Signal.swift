import Binding

/// A private observable value, written to hear something back through Binding.
///
/// A relation controller uses one as its transaction trigger; the dependency tracker writes one
/// per transaction as its probe. Observed with
/// ``Binding/ObservationOptions/coalesced``, a write is delivered at once outside `coalesce`
/// (or at the end of the write that caused it), and at the end of the outermost block inside
/// one: that is how both learn where a transaction ends.
final class _Signal: ObservableModel {
  let observation = ObservationStorage()
  @Observed var generation: UInt64 = 0
}

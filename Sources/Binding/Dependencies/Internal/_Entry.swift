/// A dependency in the tracker's set: the object, the order it was added in, and its one
/// observation token (`nil` while `add` is registering it).
struct _Entry: Sendable {
  let dependency: _Dependency
  let sequence: UInt64
  var token: ObservationToken?
}

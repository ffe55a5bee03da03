import Synchronization

/// Stops a binding from re-entering itself, without losing a value: while it sets its
/// receiver, a new source value that comes back to it (through other bindings or observers,
/// such as a clamp that writes the source again) is kept, the newest only, and applied once the
/// current write returns; again while new values keep coming, up to
/// ``maximumCoalescingRounds`` times, after which the bindings form a cycle that never settles
/// and the process traps with a message naming the binding.
///
/// The guard is only an identity. What is being applied lives in the applying thread's state
/// (`_ThreadState.applying`, a list through the stack frames applying), so applying a binding
/// costs no atomic operation, and two threads applying one binding at once (a path through
/// several objects, written on both) each keep their own values.
@usableFromInline
final class _BindingGuard {
  @usableFromInline
  init() {}

  /// Applies with `body`, then what came back meanwhile, until nothing new does; or, if this
  /// binding is being applied on this thread already (a value came back to it), keeps what
  /// `later` makes, the newest only, for that application to run when its current write
  /// returns.
  @usableFromInline
  func apply(
    _ body: () -> Void, orKeep later: () -> (() -> Void), describing binding: () -> String
  ) {
    _ThreadState.apply(
      binding: ObjectIdentifier(self), body, orKeep: later, describing: binding)
  }
}

/// Which bindings each receiver has, so that `unbind` can find them and binding a key again
/// replaces the old binding.
@usableFromInline
final class _BindingRegistry: Sendable {
  @usableFromInline
  static let shared = _BindingRegistry()

  private struct _Binding {
    weak var receiver: AnyObject?
    let key: AnyKeyPath
    let lifetime: _Lifetime
    /// The other direction of a two-way binding, ended with this one.
    var partner: (receiver: ObjectIdentifier, key: AnyKeyPath)?
  }

  private let bindings = _Lock<[ObjectIdentifier: [_Binding]]>([:])
  /// The number of receivers at which the entries of deallocated ones are next purged
  /// (doubling, so that adding stays amortised O(1)).
  private let purgeThreshold = _Lock(64)

  @usableFromInline
  func add(receiver: AnyObject, key: AnyKeyPath, lifetime: _Lifetime) {
    let id = ObjectIdentifier(receiver)
    let count = bindings.withLock { bindings in
      var list = bindings[id, default: []].filter {
        $0.receiver === receiver && $0.lifetime.isActive
      }
      list.append(_Binding(receiver: receiver, key: key, lifetime: lifetime))
      bindings[id] = list
      return bindings.count
    }
    if count >= purgeThreshold.withLock({ $0 }) { purgeDeallocatedReceivers() }
  }

  /// Forgets the bindings of receivers that were deallocated, and ends them (their source's
  /// state also sweeps them at its next registration).
  private func purgeDeallocatedReceivers() {
    let ended: [_Lifetime] = bindings.withLock { bindings in
      var ended: [_Lifetime] = []
      for (id, list) in bindings where list.allSatisfy({ $0.receiver == nil }) {
        ended += list.map { $0.lifetime }
        bindings[id] = nil
      }
      let remaining = bindings.count
      purgeThreshold.withLock { $0 = max(64, remaining * 2) }
      return ended
    }
    for lifetime in ended { lifetime.cancel() }
  }

  @usableFromInline
  func link(receiver: AnyObject, key: AnyKeyPath, to other: AnyObject, key otherKey: AnyKeyPath) {
    let id = ObjectIdentifier(receiver)
    bindings.withLock { bindings in
      guard var list = bindings[id], let index = list.lastIndex(where: { $0.key == key }) else {
        return
      }
      list[index].partner = (ObjectIdentifier(other), otherKey)
      bindings[id] = list
    }
  }

  /// Ends the bindings of `receiver` for `key` (all of them when `key` is `nil`).
  @usableFromInline
  func remove(receiver: AnyObject, key: AnyKeyPath?) {
    let id = ObjectIdentifier(receiver)
    let ended: [_Lifetime] = bindings.withLock { bindings in
      guard let list = bindings[id] else { return [] }
      var ended: [_Lifetime] = []
      var kept: [_Binding] = []
      for binding in list {
        guard binding.receiver === receiver, binding.lifetime.isActive else { continue }
        if key == nil || binding.key == key {
          ended.append(binding.lifetime)
          if let partner = binding.partner, var other = bindings[partner.receiver] {
            other.removeAll { candidate in
              guard candidate.key == partner.key else { return false }
              ended.append(candidate.lifetime)
              return true
            }
            bindings[partner.receiver] = other
          }
        } else {
          kept.append(binding)
        }
      }
      bindings[id] = kept.isEmpty ? nil : kept
      return ended
    }
    for lifetime in ended { lifetime.cancel() }
  }

  func keys(of receiver: AnyObject) -> [AnyKeyPath] {
    bindings.withLock { bindings in
      (bindings[ObjectIdentifier(receiver)] ?? [])
        .filter { $0.receiver === receiver && $0.lifetime.isActive }
        .map { $0.key }
    }
  }
}

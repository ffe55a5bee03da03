import Synchronization

/// Stops a binding from re-entering itself: while it sets its receiver, a change it causes
/// that comes back to it (through other bindings or observers) is not applied again.
@usableFromInline
final class _BindingGuard {
  @usableFromInline
  init() {}

  @usableFromInline
  func run(_ body: () -> Void) {
    let thread = _ThreadState.current
    let id = ObjectIdentifier(self)
    guard thread.activeBindings.insert(id).inserted else { return }
    body()
    thread.activeBindings.remove(id)
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

  @usableFromInline
  func add(receiver: AnyObject, key: AnyKeyPath, lifetime: _Lifetime) {
    let id = ObjectIdentifier(receiver)
    bindings.withLock { bindings in
      var list = bindings[id, default: []].filter {
        $0.receiver === receiver && $0.lifetime.isActive
      }
      list.append(_Binding(receiver: receiver, key: key, lifetime: lifetime))
      bindings[id] = list
    }
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

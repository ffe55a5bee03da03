import Synchronization

// The closures a registration is built from (`ObservableModel+Observing.swift`): dispatch to
// a target held weakly or to a handler, deletion callbacks, and key-path readers and writers
// formed where the key path is a literal.

/// Finishes `continuation` when `lifetime` ends, and ends `lifetime` when the consumer stops.
///
/// A free function so that its `@Sendable` closures capture no model metatype.
func _link<Element>(_ continuation: AsyncStream<Element>.Continuation, to lifetime: _Lifetime) {
  lifetime.onEnd { continuation.finish() }
  continuation.onTermination = { _ in lifetime.cancel() }
}

/// Builds the dispatch closure of a target registration: the target is held weakly and
/// checked (and kept alive) for the duration of each call.
@inlinable
func _targetDispatch<Target: AnyObject, Change>(
  _ target: Target, _ route: _Route, _ action: @escaping (Target, Change) -> Void
) -> (Change, _Lifetime) -> Bool {
  let box = _WeakBox(target)
  switch route {
  case .synchronous:
    return { change, _ in
      guard let target = box.value else { return false }
      action(target, change)
      return true
    }
  default:
    return { change, lifetime in
      if route.runsHere {
        // On the main actor with nothing queued: straight through, nothing allocated.
        guard let target = box.value else { return false }
        action(target, change)
        return true
      }
      guard box.value != nil else { return false }
      route.run {
        // Re-checked when its turn comes: a registration removed meanwhile hears nothing.
        if lifetime.mayDeliver, let target = box.value { action(target, change) }
      }
      return true
    }
  }
}

/// Builds the dispatch closure of a target-less registration.
@inlinable
func _handlerDispatch<Change>(
  _ route: _Route, _ handler: @escaping (Change) -> Void
) -> (Change, _Lifetime) -> Bool {
  switch route {
  case .synchronous:
    return { change, _ in
      handler(change)
      return true
    }
  default:
    return { change, lifetime in
      if route.runsHere {
        // On the main actor with nothing queued: straight through, nothing allocated.
        handler(change)
        return true
      }
      // Re-checked when its turn comes: a registration cancelled meanwhile hears nothing.
      route.run { if lifetime.mayDeliver { handler(change) } }
      return true
    }
  }
}

/// Builds the deletion callback of a target-less registration from its `onDeletion:`: run where
/// its changes run, re-checked like them when queued.
@inlinable
func _handlerDeletion<Root>(
  _ route: _Route, _ onDeletion: (() -> Void)?
) -> ((Root, _Lifetime) -> Bool)? {
  guard let onDeletion else { return nil }
  return _handlerDispatch(route) { (_: Root) in onDeletion() }
}

/// Builds the deletion callback of a target registration from its `onDeletion:`: the target
/// is held weakly, as for its changes.
@inlinable
func _targetDeletion<Target: AnyObject, Root>(
  _ target: Target, _ route: _Route, _ onDeletion: ((Target) -> Void)?
) -> ((Root, _Lifetime) -> Bool)? {
  guard let onDeletion else { return nil }
  return _targetDispatch(target, route) { (target, _: Root) in onDeletion(target) }
}

/// A method reference that takes no argument (`View.close`) as a closure taking the target.
@inlinable
func _method<Target>(_ method: ((Target) -> () -> Void)?) -> ((Target) -> Void)? {
  guard let method else { return nil }
  return { target in method(target)() }
}

/// `deletion`, called once however many registrations share it (a target registered for
/// several key paths at once hears the deletion once).
func _once<Root>(
  _ deletion: ((Root, _Lifetime) -> Bool)?
) -> ((Root, _Lifetime) -> Bool)? {
  guard let deletion else { return nil }
  let done = _OnceFlag()
  return { root, lifetime in done.take() ? deletion(root, lifetime) : true }
}

/// A flag that is taken once.
final class _OnceFlag: Sendable {
  private let taken = Atomic<Bool>(false)

  /// `true` the first time only.
  func take() -> Bool { !taken.exchange(true, ordering: .relaxed) }
}

@usableFromInline
func _erase<Root, Value>(_ kind: KeyPathChange<Root, Value>.Kind) -> KeyPathChange<Root, Any>.Kind {
  switch kind {
  case .initial: .initial
  case .change: .change
  }
}

/// A closure that reads `keyPath`, formed where `keyPath` is a literal so that the optimiser can
/// turn the read into a direct getter call. Transparent, so it is inlined into the public
/// transparent callers (the registrations and `bind`) before they are inlined into a client.
@usableFromInline
@_transparent
func _reader<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> (Root) -> Value {
  { $0[keyPath: keyPath] }
}

/// A closure that writes `keyPath` of an object, formed where `keyPath` is a literal so that
/// the optimiser can turn the write into a direct setter call (transparent, as `_reader`).
@usableFromInline
@_transparent
func _writer<Root, Value>(
  _ keyPath: ReferenceWritableKeyPath<Root, Value>
) -> (Root, Value) -> Void {
  { $0[keyPath: keyPath] = $1 }
}

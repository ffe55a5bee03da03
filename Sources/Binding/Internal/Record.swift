import Synchronization

/// The part of a registration that any thread may touch: whether it is active, the entries
/// it put in property slots, and what to run when it ends. Tokens hold this.
final class _Lifetime: Sendable {
  private let _active = Atomic<Bool>(true)
  private let _attachments = _Locked<[_EntryBase]>([])
  private let _onEnd = _Locked<(@Sendable () -> Void)?>(nil)

  var isActive: Bool { _active.load(ordering: .acquiring) }

  /// Ends the registration: nothing is delivered after this returns (on this thread; a delivery
  /// already running on another thread may finish). Idempotent.
  func cancel() {
    guard _active.exchange(false, ordering: .acquiringAndReleasing) else { return }
    let entries = _attachments.withLock { attachments in
      let entries = attachments
      attachments = []
      return entries
    }
    for entry in entries { entry.deactivate() }
    _onEnd.withLock { onEnd in
      let action = onEnd
      onEnd = nil
      return action
    }?()
  }

  /// Sets what runs once when the registration ends (runs at once if it already ended).
  func onEnd(_ action: @escaping @Sendable () -> Void) {
    let runNow = _onEnd.withLock { onEnd -> Bool in
      guard isActive else { return true }
      onEnd = action
      return false
    }
    if runNow { action() }
  }

  /// Records entries added to slots, or deactivates them at once if the registration ended.
  func attach(_ entries: [_EntryBase]) {
    let accepted = _attachments.withLock { attachments in
      guard isActive else { return false }
      attachments.append(contentsOf: entries)
      return true
    }
    if !accepted { for entry in entries { entry.deactivate() } }
  }

  /// Replaces the attachments (after re-tracking a derived key path).
  func replaceAttachments(keeping kept: [_EntryBase], adding added: [_EntryBase]) {
    let dropped = _attachments.withLock { attachments -> [_EntryBase]? in
      guard isActive else { return nil }
      let keptIDs = Set(kept.map(ObjectIdentifier.init))
      let dropped = attachments.filter { !keptIDs.contains(ObjectIdentifier($0)) }
      attachments = kept + added
      return dropped
    }
    for entry in dropped ?? added { entry.deactivate() }
  }
}

/// One registration: an observation, a target, or a binding.
class _Record {
  final let lifetime = _Lifetime()
  /// The target, for `removeTarget`; `nil` for target-less observations and bindings.
  final let targetID: ObjectIdentifier?
  /// The key paths as registered, for `removeTarget(_:for:)`.
  final let keyPaths: [AnyKeyPath]

  init(targetID: ObjectIdentifier?, keyPaths: [AnyKeyPath]) {
    self.targetID = targetID
    self.keyPaths = keyPaths
  }

  final var isActive: Bool { lifetime.isActive }

  /// Ends the registration. Idempotent.
  final func cancel() { lifetime.cancel() }

  /// Delivers the deletion of the observed object (the registration is cancelled right after).
  func deliverDeletion() {}
}

/// A registration of one key path of one root object.
///
/// A key path that reads exactly one `@Observed` property of the root, declared by the root's
/// own class (`\.name`), is *direct*: the property's setter hands its old and new value to the
/// handler. Any other key path (`\.address?.city`, `\.greeting`) is *derived*: any change of
/// what it read re-evaluates it with tracking, re-attaches to what it reads now, and delivers
/// if the value changed.
final class _KeyPathRecord<Root: ObservableModel, Value>: _Record {
  weak let root: Root?
  let path: KeyPath<Root, Value>
  let options: ObservationOptions
  let isEqual: ((Value, Value) -> Bool)?
  /// Delivers a change where the registration's delivery context says; returns `false` once
  /// the target is gone for good.
  let dispatch: (KeyPathChange<Root, Value>) -> Bool
  /// For derived key paths: the last value and what it read.
  private let _derived = _Locked<_DerivedState?>(nil)

  private struct _DerivedState {
    var value: Value
    var accesses: [(access: any _PropertyAccess, entry: _EntryBase)]
  }

  init(
    root: Root, path: KeyPath<Root, Value>, options: ObservationOptions, targetID: ObjectIdentifier?,
    dispatch: @escaping (KeyPathChange<Root, Value>) -> Bool
  ) {
    self.root = root
    self.path = path
    self.options = options
    self.isEqual = _equality(of: Value.self)
    self.dispatch = dispatch
    super.init(targetID: targetID, keyPaths: [path])
  }

  /// Resolves the key path, attaches to what it reads, and registers with the root.
  ///
  /// Returns the current value, or `nil` if the root announced its deletion.
  func start(_ root: Root) -> Value? {
    let state = root.observation.state()
    guard !state.isDeleted else {
      cancel()
      return nil
    }
    let (value, accesses) = _AccessRecorder.track { root[keyPath: path] }
    if accesses.isEmpty {
      fatalError(
        """
        Binding: the key path \(path) of \(Root.self) reads no @Observed property, so no change \
        of it can be observed. Mark the properties it reads @Observed.
        """)
    }
    if accesses.count == 1, let access = accesses[0] as? _ObservedAccess<Root, Value>,
      access.root === root, access.wrapped == path, let slot = access.slot()
    {
      // The entry keeps the registration alive while it sits in the slot; `cancel()` breaks
      // the cycle (it deactivates the entry, which the slot then unlinks).
      let entry = _SlotEntry<Root, Value>(everySet: options.contains(.everySet)) {
        object, old, new in
        self.receive(object, old, new)
      }
      slot.append(entry)
      lifetime.attach([entry])
    } else {
      let attached = accesses.compactMap { access in
        access.attach { [weak self] in self?.reevaluate() }.map { (access: access, entry: $0) }
      }
      _derived.withLock { $0 = _DerivedState(value: value, accesses: attached) }
      lifetime.attach(attached.map(\.entry))
    }
    guard state.add(self) else {
      cancel()
      return nil
    }
    return value
  }

  /// Receives a change of a direct key path from the property's setter.
  func receive(_ object: Root, _ old: Value, _ new: Value) -> Bool {
    if options.contains(.coalesced), let scope = _ThreadState.existing?.coalescing {
      scope.enqueue(self, object: object, old: old, new: new)
      return true
    }
    let delivered = dispatch(
      KeyPathChange(object: object, keyPath: path, oldValue: old, newValue: new))
    if !delivered { cancel() }
    return delivered
  }

  /// Re-evaluates a derived key path after something it read changed.
  func reevaluate() {
    guard isActive else { return }
    guard let root else {
      cancel()
      return
    }
    let (value, accesses) = _AccessRecorder.track { root[keyPath: path] }
    let previous = _derived.withLock { $0.map { ($0.value, $0.accesses) } }
    guard let (oldValue, oldAccesses) = previous else { return }
    var kept: [(access: any _PropertyAccess, entry: _EntryBase)] = []
    var added: [(access: any _PropertyAccess, entry: _EntryBase)] = []
    for access in accesses {
      if let match = oldAccesses.first(where: { $0.access.isSame(as: access) && $0.entry.isLive }) {
        kept.append(match)
      } else if let entry = access.attach({ [weak self] in self?.reevaluate() }) {
        added.append((access, entry))
      }
    }
    lifetime.replaceAttachments(keeping: kept.map(\.entry), adding: added.map(\.entry))
    _derived.withLock { $0 = _DerivedState(value: value, accesses: kept + added) }
    if !options.contains(.everySet), let isEqual, isEqual(oldValue, value) { return }
    _ = receive(root, oldValue, value)
  }

  override func deliverDeletion() {
    guard let root else { return }
    let value = root[keyPath: path]
    _ = dispatch(
      KeyPathChange(object: root, keyPath: path, oldValue: value, newValue: value, kind: .deletion))
  }
}

/// A registration that hears every property change and the deletion of one object.
final class _AnyRecord: _Record {
  let options: ObservationOptions
  let changed: (AnyObject, [AnyKeyPath]) -> Bool
  let deleted: (AnyObject) -> Void

  init(
    options: ObservationOptions, changed: @escaping (AnyObject, [AnyKeyPath]) -> Bool,
    deleted: @escaping (AnyObject) -> Void
  ) {
    self.options = options
    self.changed = changed
    self.deleted = deleted
    super.init(targetID: nil, keyPaths: [])
  }

  func propertyDidChange(_ object: AnyObject, _ keyPath: AnyKeyPath) {
    guard isActive else { return }
    if options.contains(.coalesced), let scope = _ThreadState.existing?.coalescing {
      scope.enqueue(self, object: object, keyPath: keyPath)
      return
    }
    if !changed(object, [keyPath]) { cancel() }
  }

  func deliverDeletion(_ object: AnyObject) {
    guard isActive else { return }
    if options.contains(.coalesced), let scope = _ThreadState.existing?.coalescing {
      scope.enqueueDeletion(self, object: object)
      return
    }
    deleted(object)
  }
}

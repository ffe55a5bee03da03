/// A registration that hears every property change and the deletion of one object.
final class _AnyRecord: _Record {
  typealias Handlers = (
    changed: (AnyObject, [_AnySlot], _Lifetime) -> Bool,
    deleted: (AnyObject, _Lifetime) -> Void
  )
  let options: ObservationOptions
  /// Retained by hand, released when the registration ends (see `_Record._calls`).
  private let handlers: _Retained<_Box<Handlers>>

  init(
    options: ObservationOptions, changed: @escaping (AnyObject, [_AnySlot], _Lifetime) -> Bool,
    deleted: @escaping (AnyObject, _Lifetime) -> Void
  ) {
    self.options = options
    self.handlers = _Retained(_Box((changed, deleted)))
    super.init(target: nil, keyPaths: [])
    // Weak: the state's list may drop the record (its last owner) while another thread ends
    // it; its deinit then releases the handler itself.
    lifetime.setCleanup { [weak self] in self?._endCalls() }
  }

  deinit { _releaseHandlerOnce() }

  override func releaseHandler() { handlers.release() }

  /// Tells the handler what changed; `false` once its object is gone for good. Nothing is
  /// called once the registration ended.
  func changed(_ object: AnyObject, _ slots: [_AnySlot], _ lifetime: _Lifetime) -> Bool {
    guard _enterCall() else { return true }
    defer { _exitCall() }
    return handlers.with { $0.value.changed(object, slots, lifetime) }
  }

  /// Tells the handler the object was deleted (unless the registration ended).
  func deleted(_ object: AnyObject, _ lifetime: _Lifetime) {
    guard _enterCall() else { return }
    defer { _exitCall() }
    handlers.with { $0.value.deleted(object, lifetime) }
  }

  func propertyDidChange(_ object: AnyObject, _ slot: _AnySlot) {
    guard isActive else { return }
    if options.contains(.coalesced), let scope = _openCoalescingScope() {
      scope.enqueue(self, object: object, slot: slot)
      return
    }
    if !changed(object, [slot], lifetime) { cancel() }
  }

  /// Whether the deletion event waits for the end of a coalesced transaction (the registration
  /// then ends after delivering it, not when the deletion is announced).
  private(set) var deletionIsDeferred = false

  override func deliverDeletion(of object: AnyObject) {
    guard isActive else { return }
    if options.contains(.coalesced), let scope = _openCoalescingScope() {
      deletionIsDeferred = true
      scope.enqueueDeletion(self, object: object)
      return
    }
    deleted(object, lifetime)
  }
}

/// A registration that hears every property change and the deletion of one object.
final class _AnyRecord: _Record {
  let options: ObservationOptions
  let changed: (AnyObject, [_AnySlot], _Lifetime) -> Bool
  let deleted: (AnyObject, _Lifetime) -> Void

  init(
    options: ObservationOptions, changed: @escaping (AnyObject, [_AnySlot], _Lifetime) -> Bool,
    deleted: @escaping (AnyObject, _Lifetime) -> Void
  ) {
    self.options = options
    self.changed = changed
    self.deleted = deleted
    super.init(target: nil, keyPaths: [])
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

import Binding
import Foundation

/// Marks the main queue, which runs main-actor jobs. On Linux, `swift test` hands the main queue
/// to a dispatch thread (`dispatch_main()`), so `Thread.isMainThread` is `false` on the main
/// actor there; this key tells main-actor (main-queue) code apart on every platform.
private let mainQueueKey: DispatchSpecificKey<Bool> = {
  let key = DispatchSpecificKey<Bool>()
  DispatchQueue.main.setSpecific(key: key, value: true)
  return key
}()

/// Whether the caller runs on the main queue, that is, on the main actor.
func isOnMainQueue() -> Bool { DispatchQueue.getSpecific(key: mainQueueKey) == true }

/// A view-controller-like main-actor target.
@MainActor
final class ProfileViewController {
  var title = ""
  var titles: [String] = []
  var city: String?
  var greeting = ""
  var refreshCount = 0
  /// Whether every callback ran on the main queue (the main actor).
  var allOnMainThread = true

  func record(_ value: String) {
    allOnMainThread = allOnMainThread && isOnMainQueue()
    titles.append(value)
  }

  func nameChanged(_ change: KeyPathChange<User, String>) {
    record(change.newValue)
    title = change.newValue
  }

  func refresh() {
    allOnMainThread = allOnMainThread && isOnMainQueue()
    refreshCount += 1
  }

  var closeCount = 0

  func close() {
    allOnMainThread = allOnMainThread && isOnMainQueue()
    closeCount += 1
  }
}

/// A label-like main-actor receiver, adopting `BindingReceiver` in one line.
@MainActor
final class Label: BindingReceiver {
  var text: String? {
    didSet {
      allOnMainThread = allOnMainThread && isOnMainQueue()
      texts.append(text)
    }
  }
  var texts: [String?] = []
  var allOnMainThread = true
}

import Binding
import Foundation

/// A view-controller-like main-actor target.
@MainActor
final class ProfileViewController {
  var title = ""
  var titles: [String] = []
  var city: String?
  var greeting = ""
  var refreshCount = 0
  /// Whether every callback ran on the main thread.
  var allOnMainThread = true

  func record(_ value: String) {
    allOnMainThread = allOnMainThread && Thread.isMainThread
    titles.append(value)
  }

  func nameChanged(_ change: KeyPathChange<User, String>) {
    record(change.newValue)
    title = change.newValue
  }

  func refresh() {
    allOnMainThread = allOnMainThread && Thread.isMainThread
    refreshCount += 1
  }
}

/// A label-like main-actor receiver, adopting `BindingReceiver` in one line.
@MainActor
final class Label: BindingReceiver {
  var text: String? {
    didSet {
      allOnMainThread = allOnMainThread && Thread.isMainThread
      texts.append(text)
    }
  }
  var texts: [String?] = []
  var allOnMainThread = true
}

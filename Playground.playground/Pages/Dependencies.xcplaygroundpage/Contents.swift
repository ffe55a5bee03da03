/*:
 # Dependencies

 A `DependencyTracker` holds the objects a screen depends on, reports once per transaction
 which of them changed (and which properties) or were deleted, and runs a dismiss action once
 when a transaction deletes any of them.
 */
import Binding

final class Customer: ObservableModel {
  let observation = ObservationStorage()
  @Observed var name = ""
}

final class Order: ObservableModel {
  let observation = ObservationStorage()
  @Observed var total = 0
  @Observed var status = "open"
}

let customer = Customer()
let order = Order()

let tracker = DependencyTracker(onDismiss: { print("dismiss the screen") }) { event in
  switch event {
  case .updated(let object, let changes):
    print(type(of: object), "changed:", changes.names.joined(separator: ", "))
  case .deleted(let object):
    print(type(of: object), "deleted")
  }
}
tracker.add(customer)
tracker.add(order)

example("One change is one event") {
  customer.name = "Ada"
}

example("A coalesced block is one event per object") {
  coalesce {
    order.total = 42
    order.status = "paid"
    customer.name = "Ada Lovelace"
  }
}

example("Deletions come first, and dismiss once") {
  coalesce {
    order.total = 43
    order.announceDeletion()
    customer.announceDeletion()
  }
  print("still tracked:", tracker.count)
}

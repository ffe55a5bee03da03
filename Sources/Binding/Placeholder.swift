// Replaced by the Binding module's sources.

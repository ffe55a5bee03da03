import Binding

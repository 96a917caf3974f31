; Outline query for Ruby.
;
; `def` is a method inside a class or module (the table marks Ruby's modules
; as holding methods) and a function at top level; `def self.x` is a method
; too. `class << self` is transparent: its defs belong to the class. Blocks
; (`do ... end`, `{ ... }`) are not scopes: Rails-style `included do ... end`
; defines methods. Lambdas are.

(class name: (_) @name) @definition.class
(module name: (_) @name) @definition.module
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.method
(singleton_class) @transparent

(lambda) @scope

; VERSION = "1.0"
(assignment left: (constant) @name) @definition.constant

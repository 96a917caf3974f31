; Outline query for TypeScript and TSX: the TypeScript-only definitions. The
; shared query (ecmascript.scm) follows it and supplies classes,
; functions, methods and functions assigned to variables.

(interface_declaration name: (_) @name) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name) @definition.enum
(abstract_class_declaration name: (_) @name) @definition.class

; namespace N {}, module M {}, declare module "m" {}
(internal_module name: (_) @name) @definition.module
(module name: (_) @name) @definition.module

; Overload signatures and `declare function f(): void;`.
(function_signature name: (_) @name) @definition.function

; Members of interfaces and abstract members of classes.
(interface_body (method_signature name: (_) @name) @definition.method)
(class_body (method_signature name: (_) @name) @definition.method)
(abstract_method_signature name: (_) @name) @definition.method

; Class fields holding functions: `handle = () => {}`.
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method

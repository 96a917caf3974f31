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

; `declare function f(): void;` and functions in declared namespaces and
; modules. Overload signatures (`export function f(a: string): void;` before
; the implementation) are not listed: the implementation is.
(ambient_declaration (function_signature name: (_) @name) @definition.function)
(ambient_declaration
  (_ body: (statement_block (function_signature name: (_) @name) @definition.function)))
(ambient_declaration
  (_ body: (statement_block
    (export_statement declaration: (function_signature name: (_) @name) @definition.function))))

; Members of interfaces, abstract members of classes, and the members of
; declared classes (`declare class C { m(): void; }`); method overload
; signatures in other classes are not listed.
(interface_body (method_signature name: (_) @name) @definition.method)
(ambient_declaration
  (class_declaration body: (class_body (method_signature name: (_) @name) @definition.method)))
(ambient_declaration
  (abstract_class_declaration
    body: (class_body (method_signature name: (_) @name) @definition.method)))
(abstract_method_signature name: (_) @name) @definition.method

; Class fields holding functions: `handle = () => {}`.
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method

; Overload signatures: not symbols of their own; the implementation that
; follows starts at the first one (its line is the first signature's).
(export_statement declaration: (function_signature name: (_) @name) @overload)
(program (function_signature name: (_) @name) @overload)
(statement_block (function_signature name: (_) @name) @overload)
(class_body (method_signature name: (_) @name) @overload)

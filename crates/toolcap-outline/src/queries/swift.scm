; Outline query for Swift.
;
; class, struct, enum, actor and extension are all class_declaration; the
; declaration kind tells them apart. An extension is an impl block named by
; the type it extends. Protocols are interfaces. Functions, initializers and
; deinitializers directly inside a type are methods; closures hide what they
; define.
; When several patterns capture the same node, the first one listed wins.

(class_declaration declaration_kind: "struct" name: (_) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (_) @name) @definition.enum
(class_declaration declaration_kind: "extension" name: (_) @name) @definition.impl
(class_declaration name: (_) @name) @definition.class
(protocol_declaration name: (_) @name) @definition.interface

(function_declaration name: (_) @name) @definition.function
(protocol_function_declaration name: (_) @name) @definition.function
(init_declaration name: _ @name) @definition.function
(deinit_declaration "deinit" @name) @definition.function
(subscript_declaration "subscript" @name) @definition.function
(typealias_declaration name: (_) @name) @definition.type

(lambda_literal) @scope

; Outline query for Rust.
;
; Each pattern captures a definition node as @definition.<kind> (kind is one of
; the outline kinds: module, class, struct, enum, union, trait, interface, impl,
; function, method, constant, type, macro) and the node holding its name as
; @name. An optional @body capture marks where the header ends: the text before
; it becomes the symbol's detail.
;
; Nesting is not expressed here: the outline module keeps definitions at module
; level and inside containers, drops anything inside a function (or other
; non-container), and turns functions inside impl/trait blocks into methods.
; When several patterns match the same definition node, the first one listed
; wins, so specific patterns come before fallbacks.

(mod_item name: (_) @name) @definition.module

(struct_item name: (_) @name) @definition.struct
(enum_item name: (_) @name) @definition.enum
(union_item name: (_) @name) @definition.union
(trait_item name: (_) @name) @definition.trait

; impl blocks are named by their self type without generic arguments or path:
; `impl<T> fmt::Display for a::Foo<T>` -> "Foo".
(impl_item
  type: [
    (type_identifier) @name
    (scoped_type_identifier name: (_) @name)
    (generic_type type: [
      (type_identifier) @name
      (scoped_type_identifier name: (_) @name)
    ])
  ]
  body: (_) @body) @definition.impl

; Any other self type (`&'a T`, `[T]`, `dyn Trait`, `(A, B)`): its text.
(impl_item type: (_) @name body: (_) @body) @definition.impl
(impl_item type: (_) @name) @definition.impl

; `const _: () = { impl Trait for T { ... } };` (a common way to scope
; derive output) is not a constant: the impls inside it are module-level
; (an impl applies wherever it is written); other items inside it are local
; to its block.
(const_item
  name: (identifier) @_name
  value: (block
    [(function_item) (struct_item) (enum_item) (union_item) (trait_item)
     (mod_item) (const_item) (static_item) (type_item) (macro_definition)] @scope)
  (#eq? @_name "_"))
(const_item name: (identifier) @_name (#eq? @_name "_")) @transparent

(function_item name: (_) @name) @definition.function
; Bodiless declarations: trait methods and extern block items.
(function_signature_item name: (_) @name) @definition.function

(const_item name: (_) @name) @definition.constant
(static_item name: (_) @name) @definition.constant

(type_item name: (_) @name) @definition.type
(associated_type name: (_) @name) @definition.type

(macro_definition name: (_) @name) @definition.macro

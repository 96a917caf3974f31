; Outline query for Go.
;
; Methods are declared outside their type: they are top-level symbols whose
; parent is the receiver's type (@parent), named by the method alone.
; When several patterns capture the same node, the first one listed wins.

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @parent
        (pointer_type (type_identifier) @parent)
        (generic_type type: (type_identifier) @parent)
        (pointer_type (generic_type type: (type_identifier) @parent))
      ]))
  name: (field_identifier) @name) @definition.method
(method_declaration name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

; Interface methods.
(method_elem name: (field_identifier) @name) @definition.method

(const_spec name: (identifier) @name) @definition.constant

; Function literals: what they define is local.
(func_literal) @scope

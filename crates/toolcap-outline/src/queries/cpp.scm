; Outline query for C++.
;
; As for C, functions are named through their declarator chain; in C++ the
; name may also be a field (inline method), a destructor, an operator or a
; qualified name. `void Server::serve() {}` outside the class becomes a
; method of Server (the outline splits the qualified name). Member function
; declarations inside a class body are methods. Classes, structs, unions and
; enums count only with a body.

; A member "declaration" without a type named like a macro
; (`PYBIND11_TYPE_CASTER(T, name);`, `Q_OBJECT_X(...)`) is a macro invocation,
; not a constructor (a constructor is named after its class): not listed.
; Listed before the function patterns, so it wins for these nodes.
(field_declaration !type declarator: (function_declarator declarator: (field_identifier) @_macro)
  (#match? @_macro "^[A-Z][A-Z0-9]*_[A-Z0-9_]*$")) @scope
(declaration !type declarator: (function_declarator declarator: (identifier) @_macro)
  (#match? @_macro "^[A-Z][A-Z0-9]*_[A-Z0-9_]*$")) @scope

(function_definition declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name) (template_function)] @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name) (template_function)] @name))) @definition.function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name)))) @definition.function
(function_definition declarator: (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name) (template_function)] @name))) @definition.function

(declaration declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name)) @definition.function
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name))) @definition.function
(declaration declarator: (reference_declarator (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name))) @definition.function
(field_declaration declarator: (function_declarator declarator: [(field_identifier) (destructor_name) (operator_name)] @name)) @definition.function
(field_declaration declarator: (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))) @definition.function
(field_declaration declarator: (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))) @definition.function

; Conversion operators (`operator bool() const`, `A::operator T*()`): named
; `operator bool`, the text before their parameter list.
(function_definition declarator: (operator_cast) @name) @definition.function
(function_definition declarator: (qualified_identifier name: (operator_cast)) @name) @definition.function
(declaration declarator: (operator_cast) @name) @definition.function
(field_declaration declarator: (operator_cast) @name) @definition.function

(namespace_definition name: (_) @name) @definition.module

(class_specifier name: (_) @name body: (field_declaration_list)) @definition.class
(struct_specifier name: (_) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (_) @name body: (field_declaration_list)) @definition.union
(enum_specifier name: (_) @name body: (enumerator_list)) @definition.enum

(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @definition.type
; `typedef void* (*uv_malloc_func)(size_t size);`: a pointer-returning
; function pointer type.
(type_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name))))) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type

(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

; Lambdas: what they define is local.
(lambda_expression) @scope

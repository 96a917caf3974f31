; Outline query for C++.
;
; As for C, functions are named through their declarator chain; in C++ the
; name may also be a field (inline method), a destructor, an operator or a
; qualified name. `void Server::serve() {}` outside the class becomes a
; method of Server (the outline splits the qualified name). Member function
; declarations inside a class body are methods. Classes, structs, unions and
; enums count only with a body.

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

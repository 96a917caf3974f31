; Outline query for C#.
;
; Namespaces (block and file-scoped) are modules. Methods, constructors and
; destructors are captured as functions; the outline makes those directly
; inside a class, struct, interface or record methods. Local functions live
; inside method bodies and are left out by the nesting rule.
; When several patterns capture the same node, the first one listed wins.

(namespace_declaration name: (_) @name) @definition.module
(file_scoped_namespace_declaration name: (_) @name) @definition.module

(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration "struct" name: (identifier) @name) @definition.struct
(record_declaration name: (identifier) @name) @definition.class
(delegate_declaration name: (identifier) @name) @definition.type

(method_declaration name: (identifier) @name) @definition.function
(constructor_declaration name: (identifier) @name) @definition.function
(destructor_declaration name: (identifier) @name) @definition.function
; `operator ==(A a, A b)`, `implicit operator SemVersion(string s)`: named
; from the `operator` keyword.
(operator_declaration operator: _ @name) @definition.function
(conversion_operator_declaration type: (_) @name) @definition.function

; Lambdas and anonymous methods: what they define is local.
[(lambda_expression) (anonymous_method_expression)] @scope

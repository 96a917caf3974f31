; Outline query for Kotlin (tree-sitter-kotlin-ng).
;
; `interface`, `enum class` and `class` are all class_declaration; the
; keyword tells them apart. `object` and `companion object` are classes (a
; companion without a name is transparent: its members belong to the class).
; Functions directly inside a class are methods; lambdas and function bodies
; hide what they define.
; When several patterns capture the same node, the first one listed wins.

(class_declaration "interface" name: (_) @name) @definition.interface
(class_declaration (modifiers (class_modifier "enum")) name: (_) @name) @definition.enum
(class_declaration name: (_) @name) @definition.class
(object_declaration name: (_) @name) @definition.class
; `@Target(...)` on the line before `annotation class Required` makes the
; grammar read the class as an expression (`annotation class Required`, an
; infix call): still a class.
(infix_expression (identifier) @_annotation . (identifier) @_class . (identifier) @name
  (#eq? @_annotation "annotation") (#eq? @_class "class")) @definition.class
(companion_object name: (_) @name) @definition.class
(companion_object) @transparent

(function_declaration name: (_) @name) @definition.function
; Secondary constructors, named `constructor`.
(secondary_constructor "constructor" @name) @definition.function
(type_alias type: (_) @name) @definition.type

(lambda_literal) @scope
(anonymous_function) @scope
; An anonymous object (`val l = object : Listener { override fun on() {} }`):
; its members are not the enclosing class's.
(object_literal) @scope

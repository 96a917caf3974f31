; Outline query for Scala (2 and 3).
;
; Objects are classes (their defs are methods); traits are traits. `def`s are
; functions, methods inside a class, object, trait or enum; lambdas hide what
; they define. Packages with a body (`package a { ... }`) are modules.

(class_definition name: (_) @name) @definition.class
(object_definition name: (_) @name) @definition.class
(trait_definition name: (_) @name) @definition.trait
(enum_definition name: (_) @name) @definition.enum
(package_object name: (_) @name) @definition.module
(package_clause name: (_) @name body: (_)) @definition.module

(function_definition name: (_) @name) @definition.function
(function_declaration name: (_) @name) @definition.function
(given_definition name: (_) @name) @definition.constant
(type_definition name: (_) @name) @definition.type

(lambda_expression) @scope
; An anonymous class (`new Runnable { def run() = ... }`): its members are
; not the enclosing class's.
(instance_expression) @scope
; A val's or var's initializer (`lazy val s = { def helper = ...; ... }`)
; and a refinement in its type (`val r: Repr { type A = Char }`) define
; nothing of the enclosing class's.
[(val_definition) (var_definition) (val_declaration) (var_declaration)] @scope

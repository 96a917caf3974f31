; Outline query for PHP (the grammar with HTML around `<?php ... ?>`).
;
; `namespace App;` spans its own line; `namespace App { ... }` contains its
; definitions. Closures and arrow functions are scopes.

(namespace_definition name: (_) @name) @definition.module

(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum

(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method

(const_declaration (const_element (name) @name)) @definition.constant

[(anonymous_function) (arrow_function)] @scope

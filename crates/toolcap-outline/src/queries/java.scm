; Outline query for Java.
;
; Methods and constructors are captured as functions; the outline makes those
; directly inside a class, interface, enum or record methods. Anonymous and
; local classes live inside method bodies and are left out by the nesting rule.

(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class

(method_declaration name: (identifier) @name) @definition.function
(constructor_declaration name: (identifier) @name) @definition.function
(compact_constructor_declaration name: (identifier) @name) @definition.function
(annotation_type_element_declaration name: (identifier) @name) @definition.function

; Lambdas and enum constants with bodies: what they define is local.
(lambda_expression) @scope
(enum_constant body: (class_body) @scope)
; An anonymous class (`new Object() { public int hashCode() {...} }` in a
; field initializer): its members are not the enclosing class's.
(object_creation_expression (class_body) @scope)

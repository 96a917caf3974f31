; Outline query for Python.
;
; Each pattern captures a definition node as @definition.<kind> and the node
; holding its name as @name. The definition node is the `class`/`def` statement
; itself (not the enclosing decorated_definition), so a symbol's line is the
; `def` line, not the decorator's.
;
; Nesting is handled by the outline module: definitions inside function bodies
; are dropped, and functions whose nearest enclosing definition is a class
; become methods (async and decorated ones included).

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function

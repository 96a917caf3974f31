; Outline query shared by JavaScript (after javascript.scm), TypeScript and
; TSX (after typescript.scm): every pattern here must be valid in all three
; grammars (hence `name: (_)`: an identifier in JavaScript, a type_identifier
; in TypeScript).
;
; Captures: @definition.<kind> on the definition node, @name on its name;
; @scope on anonymous functions (what they define is local to them) and
; @transparent on an immediately invoked function (a module wrapper).
; When several patterns capture the same node, the first one listed wins.

; (function () { ... })() and (() => { ... })(): a module wrapper, not a scope.
(call_expression
  function: (parenthesized_expression
    [(function_expression) (arrow_function)] @transparent))
(call_expression
  function: (member_expression
    object: (parenthesized_expression
      [(function_expression) (arrow_function)] @transparent)))
; (function () { ... }()), ;(function () { ... }.call(this)): the same
; wrappers with the call inside the parentheses.
(call_expression
  function: [(function_expression) (arrow_function)] @transparent)
(call_expression
  function: (member_expression
    object: [(function_expression) (arrow_function)] @transparent))
; UMD: (function (root, factory) { ... })(this, function (exports) { ... }):
; the factory passed to a wrapper holds the module (jQuery, Backbone, moment,
; async).
(call_expression
  function: [
    (parenthesized_expression [(function_expression) (arrow_function)])
    (function_expression)
    (arrow_function)
  ]
  arguments: (arguments [(function_expression) (arrow_function)] @transparent))
(call_expression
  function: [
    (parenthesized_expression [(function_expression) (arrow_function)])
    (function_expression)
    (arrow_function)
  ]
  arguments: (arguments
    (parenthesized_expression [(function_expression) (arrow_function)] @transparent)))

(class_declaration name: (_) @name) @definition.class
(function_declaration name: (_) @name) @definition.function
(generator_function_declaration name: (_) @name) @definition.function

; Methods of classes. A method of an object literal is part of the value it
; initializes (like a constant's contents): not listed, and what it holds is
; local.
(class_body (method_definition name: (_) @name) @definition.method)
(method_definition) @scope

; const f = () => {}; let g = function () {}; var C = class {};
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator
  name: (identifier) @name
  value: (class)) @definition.class
; React components: const Button = React.forwardRef(...), memo(...).
(variable_declarator
  name: (identifier) @name
  value: (call_expression
    function: [(identifier) (member_expression)] @_wrap)
  (#match? @_wrap "^(React\\.)?(forwardRef|memo)$")) @definition.function

; exports.f = function () {}; Foo.prototype.bar = () => {};
(expression_statement
  (assignment_expression
    left: (member_expression property: (_) @name)
    right: [(arrow_function) (function_expression) (generator_function)]) @definition.function)

; Named class expressions and anonymous functions elsewhere: their contents
; are local.
(class name: (_) @name) @definition.class
[(function_expression) (arrow_function) (generator_function)] @scope

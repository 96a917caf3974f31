; Outline query for JavaScript (JSX included): the JavaScript-only patterns.
; The shared query (ecmascript.scm) follows it.

; Class fields holding functions: `handle = () => {}`.
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method


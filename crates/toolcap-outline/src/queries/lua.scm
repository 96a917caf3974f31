; Outline query for Lua.
;
; `function M.f()` is a function whose parent is the table M; `function
; M:m()` a method of M; `local function f()` and `function f()` plain
; functions. Functions assigned to a name (`M.f = function() end`, `local f =
; function() end`) count too; other function expressions hide what they
; define.

; A module returned as a function (`return function(busted) ... end`, the
; shape of busted's modules) is a module wrapper, not a function body: what
; it defines is listed. Listed before the scope pattern below, so it wins.
(chunk (return_statement (expression_list (function_definition) @transparent)))

(function_declaration
  name: (method_index_expression table: (_) @parent method: (_) @name)) @definition.method
(function_declaration
  name: (dot_index_expression table: (_) @parent field: (_) @name)) @definition.function
(function_declaration name: (identifier) @name) @definition.function

(assignment_statement
  (variable_list name: (dot_index_expression table: (_) @parent field: (_) @name))
  (expression_list value: (function_definition))) @definition.function
(assignment_statement
  (variable_list name: (identifier) @name)
  (expression_list value: (function_definition))) @definition.function

(function_definition) @scope

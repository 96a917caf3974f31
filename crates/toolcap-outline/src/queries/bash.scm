; Outline query for Bash (and POSIX sh): functions, in either form
; (`name() { ... }`, `function name { ... }`). Functions defined inside a
; function's body are left out.

(function_definition name: (word) @name) @definition.function

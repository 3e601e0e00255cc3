; graphmem extraction query for Kotlin (capture vocabulary: see parsing/parser.py). The package
; is the file's (as Java's); a companion object's functions are members of its class.

(package_header (qualified_identifier) @package)

; ---- definitions: classes, interfaces, enum classes, objects (a singleton class), functions
; (`fun Cart.total()` extends Cart: a method of it)
(class_declaration "interface" name: (identifier) @name (class_body)? @body) @definition.interface
(class_declaration name: (identifier) @name (enum_class_body) @body) @definition.enum
((class_declaration "class" name: (identifier) @name (class_body)? @body) @definition.class)
(object_declaration name: (identifier) @name (class_body)? @body) @definition.class
(function_declaration (user_type) @receiver . "." name: (identifier) @name (function_body)? @body) @definition.function
(function_declaration name: (identifier) @name (function_body)? @body) @definition.function

; ---- inheritance: `: Base(), Repo` (a constructor call names the superclass)
(delegation_specifier (constructor_invocation (user_type) @inherits))
(delegation_specifier (user_type) @implements)

; ---- calls: `f()`, `x.f()`, `this.f()`, `super.f()`, `Foo()`, trailing lambdas
(call_expression (identifier) @reference.call [(value_arguments) (annotated_lambda)] @reference.call.args)
(call_expression
  (navigation_expression
    .
    [(identifier) (this_expression) (super_expression) (navigation_expression) (call_expression)
     (parenthesized_expression) (index_expression)] @reference.call.receiver
    (identifier) @reference.call .)
  [(value_arguments) (annotated_lambda)] @reference.call.args)

; ---- imports: `import a.b.C` -> module `a.b`, name `C`; `import a.b.*`; `import a.b.C as D`
((import (qualified_identifier) @import.path .) @import (#not-match? @import "[*][ \t]*$"))
((import (qualified_identifier) @import.module) @import (#match? @import "[*][ \t]*$") (#set! import.name "*"))
(import (qualified_identifier) @import.path (identifier) @import.alias) @import

[(line_comment) (block_comment)] @comment

; ---- overloads by arity
(function_declaration (function_value_parameters) @arity)

; ---- typed names: `val x: T`, `val x = T(...)`, constructor properties, parameters, return types
(property_declaration (variable_declaration (identifier) @type.var (user_type) @type.annotation))
(property_declaration (variable_declaration (identifier) @type.var) (call_expression (identifier) @type.call))
(class_parameter (identifier) @type.var (user_type) @type.annotation)
(parameter (identifier) @type.var (user_type) @type.annotation)
(function_declaration (function_value_parameters) . ":" . (user_type) @type.returns)

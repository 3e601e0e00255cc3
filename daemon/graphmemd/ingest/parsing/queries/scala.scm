; graphmem extraction query for Scala (capture vocabulary: see parsing/parser.py). The package
; is the file's (as Java's); an `object` is a module (its companion class keeps its own kind).

(package_clause name: (package_identifier) @package)

; ---- definitions
(class_definition name: (identifier) @name body: (template_body)? @body) @definition.class
(trait_definition name: (identifier) @name body: (template_body)? @body) @definition.trait
(object_definition name: (identifier) @name body: (template_body)? @body) @definition.module
(enum_definition name: (identifier) @name body: (_) @body) @definition.enum
(function_definition name: (identifier) @name body: (_) @body) @definition.function
(function_declaration name: (identifier) @name) @definition.function

; ---- inheritance: `extends A with B`
(extends_clause [(type_identifier) (generic_type) (stable_type_identifier)] @inherits)

; ---- calls: `f(x)`, `x.f(y)`, `new T(x)`, `T(x)` (a case class's apply)
(call_expression function: (identifier) @reference.call arguments: (arguments) @reference.call.args)
(call_expression
  function: (field_expression value: (_) @reference.call.receiver field: (identifier) @reference.call)
  arguments: (arguments) @reference.call.args)
(call_expression function: (generic_function function: (identifier) @reference.call) arguments: (arguments) @reference.call.args)
(instance_expression [(type_identifier) (generic_type) (stable_type_identifier)] @reference.call (arguments)? @reference.call.args)

; ---- imports: `import a.b.C` -> module `a.b`, name `C`; `import a.b._` -> name `*`; `import a.b.{C, D => E}`.
; The grammar gives a path no node of its own: one pattern per length (the module's segments joined).
(import_declaration . (identifier) @import.module . (identifier) @import.name .) @import
(import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.name .) @import
(import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.name .) @import
(import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.name .) @import
(import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.name .) @import
(import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.name .) @import
((import_declaration . (identifier) @import.module . (namespace_wildcard) .) @import (#set! import.name "*"))
(import_declaration . (identifier) @import.module . (namespace_selectors (identifier) @import.name) .) @import
(import_declaration . (identifier) @import.module . (namespace_selectors (arrow_renamed_identifier name: (identifier) @import.name alias: (identifier) @import.alias)) .) @import
((import_declaration . (identifier) @import.module . (identifier) @import.module . (namespace_wildcard) .) @import (#set! import.name "*"))
(import_declaration . (identifier) @import.module . (identifier) @import.module . (namespace_selectors (identifier) @import.name) .) @import
(import_declaration . (identifier) @import.module . (identifier) @import.module . (namespace_selectors (arrow_renamed_identifier name: (identifier) @import.name alias: (identifier) @import.alias)) .) @import
((import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (namespace_wildcard) .) @import (#set! import.name "*"))
(import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (namespace_selectors (identifier) @import.name) .) @import
(import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (namespace_selectors (arrow_renamed_identifier name: (identifier) @import.name alias: (identifier) @import.alias)) .) @import
((import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (namespace_wildcard) .) @import (#set! import.name "*"))
(import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (namespace_selectors (identifier) @import.name) .) @import
(import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (namespace_selectors (arrow_renamed_identifier name: (identifier) @import.name alias: (identifier) @import.alias)) .) @import
((import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (namespace_wildcard) .) @import (#set! import.name "*"))
(import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (namespace_selectors (identifier) @import.name) .) @import
(import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (namespace_selectors (arrow_renamed_identifier name: (identifier) @import.name alias: (identifier) @import.alias)) .) @import
((import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (namespace_wildcard) .) @import (#set! import.name "*"))
(import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (namespace_selectors (identifier) @import.name) .) @import
(import_declaration . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (identifier) @import.module . (namespace_selectors (arrow_renamed_identifier name: (identifier) @import.name alias: (identifier) @import.alias)) .) @import

[(comment) (block_comment)] @comment

; ---- overloads by arity
(function_definition parameters: (parameters) @arity)

; ---- typed names: vals/vars (stated, `new T`, `T(...)`), class and method parameters, return types
(val_definition pattern: (identifier) @type.var type: (_) @type.annotation)
(var_definition pattern: (identifier) @type.var type: (_) @type.annotation)
(val_definition pattern: (identifier) @type.var value: (instance_expression [(type_identifier) (generic_type)] @type.call))
(val_definition pattern: (identifier) @type.var value: (call_expression function: [(identifier) (field_expression)] @type.call))
(class_parameter name: (identifier) @type.var type: (_) @type.annotation)
(parameter name: (identifier) @type.var type: (_) @type.annotation)
(function_definition return_type: (_) @type.returns)
(function_declaration return_type: (_) @type.returns)

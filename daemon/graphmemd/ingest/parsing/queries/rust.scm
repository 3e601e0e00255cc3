; graphmem extraction query for Rust (capture vocabulary: see parsing/parser.py)

; ---- definitions (fns inside impl/trait bodies become methods)
(function_item name: (identifier) @name body: (block) @body) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name body: (_)? @body) @definition.struct
(union_item name: (type_identifier) @name body: (_) @body) @definition.struct
(enum_item name: (type_identifier) @name body: (enum_variant_list) @body) @definition.enum
(trait_item name: (type_identifier) @name body: (declaration_list) @body) @definition.trait
(mod_item name: (identifier) @name body: (declaration_list) @body) @definition.module
; macro_rules! definitions are function-like symbols (the first rule stands for the body)
(macro_definition name: (identifier) @name . (macro_rule)? @body) @definition.function

; impl blocks qualify their functions with the implementing type
(impl_item type: (_) @scope.name body: (declaration_list)) @scope

; ---- inheritance
(impl_item trait: (_) @implements)
(trait_item bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @inherits))

; ---- calls
(call_expression
  function: [(identifier) (scoped_identifier) (field_expression)] @reference.call)
(call_expression function: (generic_function function: (_) @reference.call))
(macro_invocation macro: [(identifier) (scoped_identifier)] @reference.call)

; ---- imports: `use` trees and `mod x;`
(use_declaration argument: [(identifier) (scoped_identifier) (use_wildcard)] @import.path) @import
(use_declaration argument: (use_as_clause path: (_) @import.path alias: (_) @import.alias)) @import
(scoped_use_list path: (_) @import.prefix) @import.scope
(use_list [(identifier) (scoped_identifier) (use_wildcard) (self) (crate) (super)] @import.path)
(use_list (use_as_clause path: (_) @import.path alias: (_) @import.alias))
((mod_item !body name: (identifier) @import.module) @import (#set! import.mod_decl ""))

[(line_comment) (block_comment)] @comment

; ---- typed names (receiver typing): let annotations, constructor calls, struct literals,
; parameters, struct fields, return types
(let_declaration pattern: (identifier) @type.var type: (_) @type.annotation)
(let_declaration
  pattern: (identifier) @type.var
  value: (call_expression function: [(identifier) (scoped_identifier)] @type.call))
(let_declaration pattern: (identifier) @type.var value: (struct_expression name: (_) @type.annotation))
(parameter pattern: (identifier) @type.var type: (_) @type.annotation)
(field_declaration name: (field_identifier) @type.var type: (_) @type.annotation)
(function_item return_type: (_) @type.returns)

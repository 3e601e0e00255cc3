; graphmem extraction query for Go (capture vocabulary: see parsing/parser.py)

(package_clause (package_identifier) @package)

; ---- definitions
(function_declaration name: (identifier) @name body: (block)? @body) @definition.function
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (generic_type type: (type_identifier) @receiver)
        (pointer_type [(type_identifier) @receiver (generic_type type: (type_identifier) @receiver)])
      ]))
  name: (field_identifier) @name
  body: (block)? @body) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type (field_declaration_list) @body)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type) @body) @definition.interface
(interface_type (method_elem name: (field_identifier) @name) @definition.method)
; a closure bound to a local name: f := func() { ... }
(short_var_declaration
  left: (expression_list . (identifier) @name .)
  right: (expression_list . (func_literal body: (block) @body) .)) @definition.function

; ---- embedding
(field_declaration_list
  (field_declaration
    !name
    type: [(type_identifier) (qualified_type) (pointer_type) (generic_type)] @inherits))
(interface_type (type_elem . [(type_identifier) (qualified_type) (generic_type)] @inherits .))

; ---- calls
(call_expression function: [(identifier) (selector_expression)] @reference.call)

; ---- imports
(import_spec name: (_)? @import.alias path: (_) @import.module) @import

(comment) @comment

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

; ---- typed names (receiver typing): receivers, parameters, var declarations, struct fields,
; constructor assignments and composite literals, result types
(parameter_declaration name: (identifier) @type.var type: (_) @type.annotation)
(var_spec name: (identifier) @type.var type: (_) @type.annotation)
(field_declaration name: (field_identifier) @type.var type: (_) @type.annotation)
(short_var_declaration
  left: (expression_list . (identifier) @type.var)
  right: (expression_list . (call_expression function: [(identifier) (selector_expression)] @type.call)))
(short_var_declaration
  left: (expression_list . (identifier) @type.var)
  right: (expression_list . [(composite_literal type: (_) @type.annotation)
                             (unary_expression operand: (composite_literal type: (_) @type.annotation))]))
(var_spec
  name: (identifier) @type.var
  value: (expression_list . (call_expression function: [(identifier) (selector_expression)] @type.call)))
(function_declaration result: (_) @type.returns)
(method_declaration result: (_) @type.returns)
(short_var_declaration
  left: (expression_list . (identifier) @type.var)
  right: (expression_list . [(selector_expression) (identifier)] @type.value))

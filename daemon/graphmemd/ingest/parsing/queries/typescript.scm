; graphmem extraction query for TypeScript; also the base of tsx.scm
; (capture vocabulary: see parsing/parser.py)

; ---- definitions
(function_declaration name: (identifier) @name body: (_) @body) @definition.function
(generator_function_declaration name: (identifier) @name body: (_) @body) @definition.function
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.function
(class_declaration name: (type_identifier) @name body: (class_body) @body) @definition.class
(abstract_class_declaration name: (type_identifier) @name body: (class_body) @body) @definition.class
(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @name body: (_) @body) @definition.method)
(class_body
  (abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name)
  @definition.method)
(interface_declaration name: (type_identifier) @name body: (interface_body) @body) @definition.interface
(interface_body (method_signature name: (property_identifier) @name) @definition.method)
(enum_declaration name: (identifier) @name body: (enum_body) @body) @definition.enum
(internal_module name: [(identifier) (nested_identifier)] @name body: (statement_block) @body) @definition.module
(module name: [(identifier) (nested_identifier)] @name body: (statement_block) @body) @definition.module

; ---- inheritance
(class_declaration
  (class_heritage (extends_clause value: [(identifier) (member_expression)] @inherits)))
(abstract_class_declaration
  (class_heritage (extends_clause value: [(identifier) (member_expression)] @inherits)))
(class_declaration (class_heritage (implements_clause (_) @implements)))
(abstract_class_declaration (class_heritage (implements_clause (_) @implements)))
(interface_declaration (extends_type_clause type: (_) @inherits))

; ---- calls
(call_expression function: [(identifier) (member_expression)] @reference.call)
(new_expression constructor: [(identifier) (member_expression)] @reference.call)

; ---- imports (ES modules, re-exports, require and dynamic import)
(import_statement source: (string) @import.module) @import
((import_statement (import_clause (identifier) @import.alias) source: (string) @import.module) @import
  (#set! import.name "default"))
((import_statement
  (import_clause (namespace_import (identifier) @import.alias)) source: (string) @import.module) @import
  (#set! import.name "*"))
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name !alias)))
  source: (string) @import.module) @import
(import_statement
  (import_clause (named_imports (import_specifier name: (_) @import.name alias: (_) @import.alias)))
  source: (string) @import.module) @import
(import_statement (import_require_clause (identifier) @import.alias source: (string) @import.module)) @import
(export_statement source: (string) @import.module) @import
((export_statement "*" source: (string) @import.module) @import (#set! import.name "*"))
(export_statement
  (export_clause (export_specifier name: (_) @import.name !alias)) source: (string) @import.module) @import
(export_statement
  (export_clause (export_specifier name: (_) @import.name alias: (_) @import.alias))
  source: (string) @import.module) @import
((call_expression
  function: (identifier) @_require arguments: (arguments . (string) @import.module .)) @import
  (#eq? @_require "require"))
((variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (identifier) @_require arguments: (arguments . (string) @import.module .)) @import)
  (#eq? @_require "require"))
(call_expression function: (import) arguments: (arguments . (string) @import.module)) @import

(comment) @comment

; ---- typed names (receiver typing): annotations, `new T()` assignments, class fields,
; constructor parameter properties (`constructor(private svc: Svc)`), return types
(variable_declarator name: (identifier) @type.var type: (type_annotation (_) @type.annotation))
(variable_declarator name: (identifier) @type.var value: (new_expression constructor: [(identifier) (member_expression)] @type.call))
(variable_declarator name: (identifier) @type.var value: (call_expression function: [(identifier) (member_expression)] @type.call))
(required_parameter pattern: (identifier) @type.var type: (type_annotation (_) @type.annotation))
(optional_parameter pattern: (identifier) @type.var type: (type_annotation (_) @type.annotation))
((required_parameter (accessibility_modifier) pattern: (identifier) @type.var type: (type_annotation (_) @type.annotation))
  (#set! type.prefix "this."))
(public_field_definition name: (property_identifier) @type.var type: (type_annotation (_) @type.annotation))
(public_field_definition name: (property_identifier) @type.var value: (new_expression constructor: [(identifier) (member_expression)] @type.call))
(assignment_expression
  left: (member_expression object: (this) property: (property_identifier)) @type.var
  right: (new_expression constructor: [(identifier) (member_expression)] @type.call))
(function_declaration return_type: (type_annotation (_) @type.returns))
(method_definition return_type: (type_annotation (_) @type.returns))

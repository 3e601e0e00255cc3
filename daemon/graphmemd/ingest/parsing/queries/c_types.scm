; graphmem typed-name patterns of C declarations, for C++ receivers (capture vocabulary: see
; parsing/parser.py). Not part of the C query: C has no methods, so a typed receiver only ever
; leads to a field (a function pointer), never to a definition.

; ---- typed names: locals, parameters, fields, return types
(declaration
  type: [(type_identifier) @type.annotation (struct_specifier name: (_) @type.annotation) (union_specifier name: (_) @type.annotation)]
  declarator: [
    (identifier) @type.var
    (pointer_declarator declarator: (identifier) @type.var)
    (init_declarator declarator: [(identifier) @type.var (pointer_declarator declarator: (identifier) @type.var)])
  ])
(parameter_declaration
  type: [(type_identifier) @type.annotation (struct_specifier name: (_) @type.annotation) (union_specifier name: (_) @type.annotation)]
  declarator: [(identifier) @type.var (pointer_declarator declarator: (identifier) @type.var)])
(field_declaration
  type: [(type_identifier) @type.annotation (struct_specifier name: (_) @type.annotation) (union_specifier name: (_) @type.annotation)]
  declarator: [(field_identifier) @type.var (pointer_declarator declarator: (field_identifier) @type.var)])
(function_definition
  type: [(type_identifier) @type.returns (struct_specifier name: (_) @type.returns) (union_specifier name: (_) @type.returns)])
(translation_unit
  (declaration
    type: [(type_identifier) @type.returns (struct_specifier name: (_) @type.returns) (union_specifier name: (_) @type.returns)]
    declarator: [(function_declarator) (pointer_declarator declarator: (function_declarator))]))

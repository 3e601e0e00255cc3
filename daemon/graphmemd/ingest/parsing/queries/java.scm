; graphmem extraction query for Java (capture vocabulary: see parsing/parser.py)

(package_declaration [(identifier) (scoped_identifier)] @package)

; ---- definitions (constructors are methods named like the class)
(class_declaration name: (identifier) @name body: (class_body) @body) @definition.class
(record_declaration name: (identifier) @name body: (class_body) @body) @definition.class
(interface_declaration name: (identifier) @name body: (interface_body) @body) @definition.interface
(annotation_type_declaration name: (identifier) @name body: (annotation_type_body) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (enum_body) @body) @definition.enum
(method_declaration name: (identifier) @name body: (block)? @body) @definition.method
(constructor_declaration name: (identifier) @name body: (constructor_body) @body) @definition.method
(compact_constructor_declaration name: (identifier) @name body: (block) @body) @definition.method

; ---- inheritance
(class_declaration superclass: (superclass (_) @inherits))
(class_declaration interfaces: (super_interfaces (type_list (_) @implements)))
(record_declaration interfaces: (super_interfaces (type_list (_) @implements)))
(enum_declaration interfaces: (super_interfaces (type_list (_) @implements)))
(interface_declaration (extends_interfaces (type_list (_) @inherits)))

; ---- calls
(method_invocation
  object: (_)? @reference.call.receiver name: (identifier) @reference.call
  arguments: (argument_list) @reference.call.args)
(object_creation_expression type: (_) @reference.call arguments: (argument_list) @reference.call.args)

; ---- imports (`import a.b.C;` -> module a.b, name C; `import a.b.*;` -> module a.b, name *)
(import_declaration (scoped_identifier) @import.path .) @import
((import_declaration (scoped_identifier) @import.module (asterisk)) @import (#set! import.name "*"))

[(line_comment) (block_comment)] @comment

; ---- overloads by arity: parameter counts of methods and constructors
(method_declaration parameters: (formal_parameters) @arity)
(constructor_declaration parameters: (formal_parameters) @arity)

; ---- typed names (receiver typing): locals, fields, parameters, `var x = new T()`, return types
((local_variable_declaration type: (_) @type.annotation declarator: (variable_declarator name: (identifier) @type.var))
  (#not-eq? @type.annotation "var"))
(local_variable_declaration
  declarator: (variable_declarator name: (identifier) @type.var value: (object_creation_expression type: (_) @type.call)))
(field_declaration type: (_) @type.annotation declarator: (variable_declarator name: (identifier) @type.var))
(formal_parameter type: (_) @type.annotation name: (identifier) @type.var)
(method_declaration type: (_) @type.returns)
(enhanced_for_statement type: (_) @type.annotation name: (identifier) @type.var)

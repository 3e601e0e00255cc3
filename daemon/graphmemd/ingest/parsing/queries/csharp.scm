; graphmem extraction query for C# (capture vocabulary: see parsing/parser.py). The namespace
; is the file's package (as Java's), not a symbol.

(namespace_declaration name: [(identifier) (qualified_name)] @package)
(file_scoped_namespace_declaration name: [(identifier) (qualified_name)] @package)

; ---- definitions (constructors are methods named like the class)
(class_declaration name: (identifier) @name body: (declaration_list) @body) @definition.class
(record_declaration name: (identifier) @name body: (declaration_list)? @body) @definition.class
(struct_declaration name: (identifier) @name body: (declaration_list) @body) @definition.struct
(interface_declaration name: (identifier) @name body: (declaration_list) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (enum_member_declaration_list) @body) @definition.enum
(method_declaration name: (identifier) @name body: [(block) (arrow_expression_clause)]? @body) @definition.function
(constructor_declaration name: (identifier) @name body: [(block) (arrow_expression_clause)] @body) @definition.method
(local_function_statement name: (identifier) @name body: [(block) (arrow_expression_clause)] @body) @definition.function

; ---- inheritance: a base named I<Upper>... is an interface (the syntax does not tell)
((base_list [(identifier) (qualified_name) (generic_name)] @implements) (#match? @implements "^(.*\\.)?I[A-Z]"))
((base_list [(identifier) (qualified_name) (generic_name)] @inherits) (#not-match? @inherits "^(.*\\.)?I[A-Z]"))

; ---- calls: `F()`, `x.F()`, `this.F()`, `base.F()`, `F<T>()`, `new T()`
(invocation_expression function: [(identifier) (generic_name)] @reference.call arguments: (argument_list) @reference.call.args)
(invocation_expression
  function: (member_access_expression expression: _ @reference.call.receiver name: [(identifier) (generic_name)] @reference.call)
  arguments: (argument_list) @reference.call.args)
(object_creation_expression type: [(identifier) (qualified_name) (generic_name)] @reference.call arguments: (argument_list)? @reference.call.args)

; ---- imports: `using A.B;` -> module `A.B`, name `*`; `using X = A.B.C;` -> module `A.B`, name `C`, alias `X`
((using_directive !name [(identifier) (qualified_name)] @import.module) @import (#set! import.name "*"))
(using_directive name: (identifier) @import.alias (qualified_name) @import.path) @import

(comment) @comment

; ---- overloads by arity: parameter counts of methods and constructors
(method_declaration parameters: (parameter_list) @arity)
(constructor_declaration parameters: (parameter_list) @arity)

; ---- typed names: locals and fields, `var x = new T()`, parameters, properties, return types
(variable_declaration
  type: [(identifier) (qualified_name) (generic_name) (nullable_type)] @type.annotation
  (variable_declarator name: (identifier) @type.var))
(variable_declaration
  type: (implicit_type)
  (variable_declarator name: (identifier) @type.var (object_creation_expression type: (_) @type.call)))
(parameter type: [(identifier) (qualified_name) (generic_name) (nullable_type)] @type.annotation name: (identifier) @type.var)
(property_declaration type: [(identifier) (qualified_name) (generic_name) (nullable_type)] @type.annotation name: (identifier) @type.var)
(method_declaration returns: [(identifier) (qualified_name) (generic_name) (nullable_type)] @type.returns)

; graphmem extraction query for C++: appended to c.scm (capture vocabulary: see parsing/parser.py).
; A name written with its scope (`void app::Store::save()`, `namespace a::b`) is split by the
; language spec's scope_separator: `save` qualified by `app.Store` (an out-of-line definition
; joins its class), `b` inside `a`.

; ---- definitions
(function_definition
  declarator: [
    (function_declarator declarator: [(field_identifier) (qualified_identifier) (destructor_name) (operator_name) (template_function)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (qualified_identifier) (operator_name) (template_function)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name) (template_function)] @name))
  ]
  body: [(compound_statement) (try_statement)]? @body) @definition.function
(template_declaration
  (function_definition
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name) (template_function)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name) (template_function)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name) (template_function)] @name))
    ]
    body: (compound_statement)? @body)) @definition.function
; member declarations (`void save();`, `Store(int);`, `~Store();`) and other prototypes
((field_declaration
  declarator: [
    (function_declarator declarator: [(field_identifier) (operator_name) (destructor_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))
    (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))
  ]) @definition.function
  (#set! def.parents "field_declaration_list preproc_if preproc_ifdef preproc_else preproc_elif template_declaration"))
((declaration
  declarator: [
    (function_declarator declarator: [(qualified_identifier) (destructor_name) (operator_name) (template_function)] @name)
    (reference_declarator (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name))
  ]) @definition.function
  (#set! def.parents "translation_unit preproc_if preproc_ifdef preproc_else preproc_elif preproc_elifdef declaration_list linkage_specification template_declaration field_declaration_list"))
(template_declaration
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (qualified_identifier)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (qualified_identifier)] @name))
    ])) @definition.function
(class_specifier name: [(type_identifier) (qualified_identifier)] @name body: (field_declaration_list) @body) @definition.class
(template_declaration
  (class_specifier name: [(type_identifier) (qualified_identifier)] @name body: (field_declaration_list) @body)) @definition.class
(template_declaration
  (struct_specifier name: [(type_identifier) (qualified_identifier)] @name body: (field_declaration_list) @body)) @definition.struct
(struct_specifier name: (qualified_identifier) @name body: (field_declaration_list) @body) @definition.struct
; a specialization (`template <typename R> class Fn<R()> {...}`, `template <> struct hash<Id> {...}`)
; is named like its template
(template_declaration
  (class_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list) @body)) @definition.class
(template_declaration
  (struct_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list) @body)) @definition.struct
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name body: (declaration_list) @body) @definition.module

; ---- inheritance (`class A : public B, C<T>`)
(class_specifier (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @inherits))
(struct_specifier (base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @inherits))

; ---- calls: `ns::f()`, `f<T>()`, `obj.m<T>()`, `new T(...)`, `T x(...)` (a constructor)
(call_expression function: (qualified_identifier) @reference.call arguments: (argument_list) @reference.call.args)
(call_expression function: (template_function name: (identifier) @reference.call) arguments: (argument_list) @reference.call.args)
(call_expression
  function: (field_expression argument: (_) @reference.call.receiver field: (template_method name: (field_identifier) @reference.call))
  arguments: (argument_list) @reference.call.args)
(new_expression type: (_) @reference.call arguments: (argument_list)? @reference.call.args)
(declaration
  type: [(type_identifier) (qualified_identifier) (template_type)] @reference.call
  declarator: (init_declarator value: (argument_list) @reference.call.args))
(compound_statement
  (declaration
    type: [(type_identifier) (qualified_identifier) (template_type)] @reference.call
    declarator: (function_declarator declarator: (identifier) parameters: (parameter_list) @reference.call.args)))

; ---- imports: `using namespace a::b;` -> module `a::b`, name `*`; `using a::B;` -> module `a`, name `B`
((using_declaration "namespace" [(identifier) (qualified_identifier)] @import.module) @import (#set! import.name "*"))
((using_declaration (qualified_identifier) @import.path) @import (#not-match? @import "^using\\s+namespace"))

; ---- overloads by arity: parameter counts of the declarators
(function_declarator
  declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name) (template_function)]
  parameters: (parameter_list) @arity)

; ---- typed names: C++ type spellings, references, `auto x = new T()` / `T(...)` / `f()`,
; `T x(y);` read as a variable (the grammar reads it as a prototype inside a block)
(declaration
  type: [(qualified_identifier) (template_type)] @type.annotation
  declarator: [
    (identifier) @type.var
    (pointer_declarator declarator: (identifier) @type.var)
    (reference_declarator (identifier) @type.var)
    (init_declarator declarator: [(identifier) @type.var (pointer_declarator declarator: (identifier) @type.var) (reference_declarator (identifier) @type.var)])
  ])
(declaration
  type: (type_identifier) @type.annotation
  declarator: [(reference_declarator (identifier) @type.var) (init_declarator declarator: (reference_declarator (identifier) @type.var))])
(compound_statement
  (declaration
    type: [(type_identifier) (qualified_identifier) (template_type)] @type.annotation
    declarator: (function_declarator declarator: (identifier) @type.var)))
(declaration
  type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: [
      (identifier) @type.var
      (pointer_declarator declarator: (identifier) @type.var)
      (reference_declarator (identifier) @type.var)
    ]
    value: [(new_expression type: (_) @type.call) (call_expression function: (_) @type.call)]))
(parameter_declaration
  type: [(qualified_identifier) (template_type)] @type.annotation
  declarator: [(identifier) @type.var (pointer_declarator declarator: (identifier) @type.var) (reference_declarator (identifier) @type.var)])
(parameter_declaration
  type: (type_identifier) @type.annotation
  declarator: (reference_declarator (identifier) @type.var))
(field_declaration
  type: [(qualified_identifier) (template_type)] @type.annotation
  declarator: [(field_identifier) @type.var (pointer_declarator declarator: (field_identifier) @type.var)])
(function_definition type: [(qualified_identifier) (template_type)] @type.returns)
(field_declaration
  type: [(type_identifier) (qualified_identifier) (template_type)] @type.returns
  declarator: [(function_declarator) (pointer_declarator declarator: (function_declarator)) (reference_declarator (function_declarator))])
(declaration_list
  (declaration
    type: [(type_identifier) (qualified_identifier) (template_type)] @type.returns
    declarator: [(function_declarator) (pointer_declarator declarator: (function_declarator))]))
(translation_unit
  (declaration
    type: [(qualified_identifier) (template_type)] @type.returns
    declarator: [(function_declarator) (pointer_declarator declarator: (function_declarator))]))

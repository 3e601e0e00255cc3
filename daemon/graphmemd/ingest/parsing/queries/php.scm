; graphmem extraction query for PHP (capture vocabulary: see parsing/parser.py). Names written
; with `\` are read with `::` (the spec's separator_alias); `$` is dropped (its sigils).

(namespace_definition name: (namespace_name) @package)

; ---- definitions
(class_declaration name: (name) @name body: (declaration_list) @body) @definition.class
(interface_declaration name: (name) @name body: (declaration_list) @body) @definition.interface
(trait_declaration name: (name) @name body: (declaration_list) @body) @definition.trait
(enum_declaration name: (name) @name body: (enum_declaration_list) @body) @definition.enum
(method_declaration name: (name) @name body: (compound_statement)? @body) @definition.function
(function_definition name: (name) @name body: (compound_statement) @body) @definition.function

; ---- inheritance: extends, implements, traits used in a class
(base_clause [(name) (qualified_name)] @inherits)
(class_interface_clause [(name) (qualified_name)] @implements)
(use_declaration [(name) (qualified_name)] @inherits)

; ---- calls: `f()`, `\ns\f()`, `$x->m()`, `$x?->m()`, `Foo::m()` / `self::m()` / `parent::m()`, `new Foo()`
(function_call_expression function: [(name) (qualified_name)] @reference.call arguments: (arguments) @reference.call.args)
(member_call_expression object: (_) @reference.call.receiver name: (name) @reference.call arguments: (arguments) @reference.call.args)
(nullsafe_member_call_expression object: (_) @reference.call.receiver name: (name) @reference.call arguments: (arguments) @reference.call.args)
(scoped_call_expression scope: (_) @reference.call.receiver name: (name) @reference.call arguments: (arguments) @reference.call.args)
(object_creation_expression [(name) (qualified_name)] @reference.call (arguments)? @reference.call.args)

; ---- imports: `use A\B\C;` -> module `A\B`, name `C`; groups `use A\{B, C as D}`; `use function`
(namespace_use_declaration (namespace_use_clause [(qualified_name) (name)] @import.path !alias)) @import
(namespace_use_declaration (namespace_use_clause [(qualified_name) (name)] @import.path alias: (name) @import.alias)) @import
(namespace_use_declaration (namespace_name) @import.prefix body: (namespace_use_group)) @import.scope
(namespace_use_group (namespace_use_clause [(qualified_name) (name)] @import.path !alias))
(namespace_use_group (namespace_use_clause [(qualified_name) (name)] @import.path alias: (name) @import.alias))

(comment) @comment

; ---- overloads: none in PHP; typed names: parameters, properties, promoted constructor
; parameters (`$this->x`), `$x = new Foo()`, `$this->x = new Foo()`, return types
(simple_parameter
  type: [(named_type [(name) (qualified_name)] @type.annotation) (optional_type (named_type [(name) (qualified_name)] @type.annotation))]
  name: (variable_name (name) @type.var))
((property_promotion_parameter
  type: [(named_type [(name) (qualified_name)] @type.annotation) (optional_type (named_type [(name) (qualified_name)] @type.annotation))]
  name: (variable_name (name) @type.var))
  (#set! type.prefix "this."))
(property_declaration
  type: [(named_type [(name) (qualified_name)] @type.annotation) (optional_type (named_type [(name) (qualified_name)] @type.annotation))]
  (property_element name: (variable_name (name) @type.var)))
(assignment_expression
  left: (variable_name (name) @type.var)
  right: (object_creation_expression [(name) (qualified_name)] @type.call))
((assignment_expression
  left: (member_access_expression object: (variable_name (name) @_this) name: (name) @type.var)
  right: (object_creation_expression [(name) (qualified_name)] @type.call))
  (#eq? @_this "this") (#set! type.prefix "this."))
(method_declaration
  return_type: [(named_type [(name) (qualified_name)] @type.returns) (optional_type (named_type [(name) (qualified_name)] @type.returns))])
(function_definition
  return_type: [(named_type [(name) (qualified_name)] @type.returns) (optional_type (named_type [(name) (qualified_name)] @type.returns))])

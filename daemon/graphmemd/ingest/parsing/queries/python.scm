; graphmem extraction query for Python (capture vocabulary: see parsing/parser.py)

; ---- definitions (a decorated definition wins over its bare inner definition)
(decorated_definition
  definition: (class_definition name: (identifier) @name body: (block) @body)) @definition.class
(decorated_definition
  definition: (function_definition name: (identifier) @name body: (block) @body)) @definition.function
(class_definition name: (identifier) @name body: (block) @body) @definition.class
(function_definition name: (identifier) @name body: (block) @body) @definition.function

; ---- inheritance
(class_definition superclasses: (argument_list [(identifier) (attribute) (subscript)] @inherits))

; ---- calls, with how each passes its arguments (a generator argument's call: shape unknown;
; an argument list without `=`, `*` or `#` holds no keyword, splat or comment)
(call function: [(identifier) (attribute)] @reference.call arguments: (_) @reference.call.arguments
  (#set! reference.call.opaque "generator_expression")
  (#set! reference.call.keyword "keyword_argument")
  (#set! reference.call.splat "list_splat dictionary_splat")
  (#set! reference.call.comment "comment")
  (#set! reference.call.marks "=*#"))

; ---- imports
(import_statement name: (dotted_name) @import.module) @import
(import_statement
  name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias)) @import
(import_from_statement
  module_name: (_) @import.module name: (dotted_name) @import.name) @import
(import_from_statement
  module_name: (_) @import.module
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import
((import_from_statement module_name: (_) @import.module (wildcard_import)) @import
  (#set! import.name "*"))
(future_import_statement name: (dotted_name) @import.name (#set! import.module "__future__")) @import

(comment) @comment

; ---- typed names (receiver typing): constructor assignments, annotations, return types
(assignment left: (identifier) @type.var right: (call function: [(identifier) (attribute)] @type.call))
; `cls.root = root = Tk()`: both names are what the call builds
(assignment
  left: [(identifier) (attribute object: (identifier) attribute: (identifier))] @type.var
  right: (assignment right: (call function: [(identifier) (attribute)] @type.call)))
(assignment
  left: (attribute object: (identifier) attribute: (identifier)) @type.var
  right: (call function: [(identifier) (attribute)] @type.call))
(assignment left: [(identifier) (attribute)] @type.var type: (type) @type.annotation)
(typed_parameter (identifier) @type.var type: (type) @type.annotation)
(typed_default_parameter name: (identifier) @type.var type: (type) @type.annotation)
(function_definition return_type: (type) @type.returns)

; ---- __all__ (limits `from m import *`)
(expression_statement
  (assignment left: (identifier) @_all
    right: [(list (string (string_content) @export)) (tuple (string (string_content) @export))])
  (#eq? @_all "__all__"))

; ---- typed by value: `x = self.conn`, `self.parent = parent` (the value's known type)
(assignment left: (identifier) @type.var right: [(attribute) (identifier)] @type.value)
(assignment
  left: (attribute object: (identifier) attribute: (identifier)) @type.var
  right: [(attribute) (identifier)] @type.value)
; chained aliases: `pack = configure = pack_configure` binds every name on the left
(assignment left: (identifier) @type.var right: (assignment right: [(attribute) (identifier)] @type.value))
(assignment
  left: (identifier) @type.var
  right: (assignment right: (assignment right: [(attribute) (identifier)] @type.value)))
; `with Foo() as f` (assumes __enter__ returns the instance, as it nearly always does)
(with_item value: (as_pattern (call function: [(identifier) (attribute)] @type.call) alias: (as_pattern_target (identifier) @type.var)))
; `return Foo(...)`: a function without annotation returns what it constructs
(return_statement (call function: [(identifier) (attribute)] @type.returns.call))
(return_statement [(identifier) (attribute)] @type.returns.value)

; graphmem extraction query for Ruby (capture vocabulary: see parsing/parser.py)

; ---- definitions: classes and modules (`class Shop::Cart` is `Cart` inside `Shop`), methods
; (`def self.build` is `build` of the class), attr_reader/attr_accessor names (methods)
(class name: [(constant) (scope_resolution)] @name body: (_)? @body) @definition.class
(module name: [(constant) (scope_resolution)] @name body: (_)? @body) @definition.module
(method name: (_) @name body: (_)? @body) @definition.function
(singleton_method name: (_) @name body: (_)? @body) @definition.function
; `Point = Struct.new(:x, :y) do ... end`, `Error = Class.new(StandardError)`: classes
((assignment
  left: [(constant) (scope_resolution)] @name
  right: (call receiver: (constant) @_maker method: (identifier) @_new block: (_)? @body)) @definition.class
  (#any-of? @_maker "Struct" "Class" "Data") (#eq? @_new "new"))
((call
  !receiver
  method: (identifier) @_attr
  arguments: (argument_list (simple_symbol) @name @definition.method))
  (#any-of? @_attr "attr_reader" "attr_accessor" "attr_writer"))

; ---- inheritance: `class A < B`; include/prepend/extend of a module
(class superclass: (superclass [(constant) (scope_resolution)] @inherits))
((call !receiver method: (identifier) @_mixin arguments: (argument_list [(constant) (scope_resolution)] @inherits))
  (#any-of? @_mixin "include" "prepend" "extend"))

; ---- calls: `recv.m(...)`, `Foo::Bar.m`, `m(...)`, `super`; a bare name is a call unless a
; local variable of its method holds it
(call receiver: (_) @reference.call.receiver method: [(identifier) (constant) (operator)] @reference.call)
((call !receiver method: [(identifier) (constant)] @reference.call)
  (#set! reference.call.except
    "require require_relative include extend prepend attr_reader attr_accessor attr_writer private public protected module_function private_constant private_class_method"))
(call !receiver method: (super) @reference.call)
[
  (body_statement (identifier) @reference.call.bare)
  (then (identifier) @reference.call.bare)
  (else (identifier) @reference.call.bare)
  (block_body (identifier) @reference.call.bare)
  (binary [(identifier) @reference.call.bare])
  (unary (identifier) @reference.call.bare)
  (argument_list (identifier) @reference.call.bare)
  (assignment right: (identifier) @reference.call.bare)
  (operator_assignment right: (identifier) @reference.call.bare)
  (parenthesized_statements (identifier) @reference.call.bare)
  (interpolation (identifier) @reference.call.bare)
  (pair value: (identifier) @reference.call.bare)
  (array (identifier) @reference.call.bare)
  (conditional [(identifier) @reference.call.bare])
  (if condition: (identifier) @reference.call.bare)
  (unless condition: (identifier) @reference.call.bare)
  (while condition: (identifier) @reference.call.bare)
  (if_modifier condition: (identifier) @reference.call.bare)
  (unless_modifier condition: (identifier) @reference.call.bare)
  (element_reference object: (identifier) @reference.call.bare)
  (super) @reference.call.bare
]

; local variables: what a bare name is not a call of
(assignment left: (identifier) @local)
(operator_assignment left: (identifier) @local)
(left_assignment_list (identifier) @local)
(method_parameters (identifier) @local)
(lambda_parameters (identifier) @local)
(block_parameters (identifier) @local)
(optional_parameter name: (identifier) @local)
(keyword_parameter name: (identifier) @local)
(splat_parameter name: (identifier) @local)
(hash_splat_parameter name: (identifier) @local)
(block_parameter name: (identifier) @local)
(destructured_parameter (identifier) @local)
(for pattern: (identifier) @local)
(exception_variable (identifier) @local)

; ---- imports: `require "x"` -> module `x`; `require_relative "x"` -> module `x`, name `relative`
((call !receiver method: (identifier) @_req arguments: (argument_list . (string (string_content) @import.module))) @import
  (#eq? @_req "require"))
((call !receiver method: (identifier) @_req arguments: (argument_list . (string (string_content) @import.module))) @import
  (#eq? @_req "require_relative") (#set! import.name "relative"))

(comment) @comment

; ---- typed names: what a call assigned (`x = Foo.new(...)`: the class; `x = build(...)`: what
; `build` returns), instance variables too (`@x = ...`, `@x ||= ...`: the attribute `self.x`);
; a method whose last expression builds an object (`Foo.new(...)`, `new(...)`, `@x ||= Foo.new`)
; returns that class
(assignment left: (identifier) @type.var right: (call) @type.call)
((assignment left: (instance_variable) @type.var right: (call) @type.call) (#set! type.prefix "self."))
((operator_assignment left: (instance_variable) @type.var right: (call) @type.call) (#set! type.prefix "self."))
((method body: (body_statement (call method: (identifier) @_new) @type.returns.call .)) (#eq? @_new "new"))
((singleton_method body: (body_statement (call method: (identifier) @_new) @type.returns.call .)) (#eq? @_new "new"))
((method body: (body_statement (operator_assignment right: (call method: (identifier) @_new) @type.returns.call) .))
  (#eq? @_new "new"))

; graphmem extraction query for Swift (capture vocabulary: see parsing/parser.py). An
; `extension T` qualifies what it holds with T (as a Rust impl): `T.method`.

; ---- definitions
((class_declaration declaration_kind: ["class" "actor"] name: (type_identifier) @name body: (_) @body) @definition.class)
((class_declaration declaration_kind: "struct" name: (type_identifier) @name body: (_) @body) @definition.struct)
((class_declaration declaration_kind: "enum" name: (type_identifier) @name body: (_) @body) @definition.enum)
(protocol_declaration name: (type_identifier) @name body: (protocol_body) @body) @definition.interface
(function_declaration name: (simple_identifier) @name body: (function_body) @body) @definition.function
(init_declaration name: "init" @name body: (function_body)? @body) @definition.method
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(class_declaration declaration_kind: "extension" name: (user_type) @scope.name body: (_)) @scope

; ---- inheritance and conformance: a class's first base may be its superclass; a struct's,
; an enum's and an extension's are protocols
(class_declaration declaration_kind: ["class" "actor"] (inheritance_specifier inherits_from: (user_type) @inherits))
(class_declaration declaration_kind: ["struct" "enum" "extension"] (inheritance_specifier inherits_from: (user_type) @implements))
(protocol_declaration (inheritance_specifier inherits_from: (user_type) @inherits))

; ---- calls: `f(x)`, `x.f(y)`, `self.f()`, `super.f()`, `T(...)` (an initializer), trailing closures
(call_expression (simple_identifier) @reference.call (call_suffix (value_arguments)? @reference.call.args))
(call_expression
  (navigation_expression target: _ @reference.call.receiver suffix: (navigation_suffix suffix: (simple_identifier) @reference.call))
  (call_suffix (value_arguments)? @reference.call.args))

; ---- imports: `import ShopCore` -> the module ShopCore
(import_declaration (identifier) @import.module) @import

[(comment) (multiline_comment)] @comment

; ---- typed names: `let x: T`, `let x = T(...)`, parameters, return types
(property_declaration name: (pattern bound_identifier: (simple_identifier) @type.var) (type_annotation (user_type) @type.annotation))
(property_declaration name: (pattern bound_identifier: (simple_identifier) @type.var) value: (call_expression (simple_identifier) @type.call))
(parameter name: (simple_identifier) @type.var (user_type) @type.annotation)
(function_declaration (user_type) @type.returns)

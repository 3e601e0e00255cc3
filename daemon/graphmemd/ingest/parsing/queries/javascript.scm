; graphmem extraction query for JavaScript (capture vocabulary: see parsing/parser.py)

; ---- definitions
(function_declaration name: (identifier) @name body: (_) @body) @definition.function
(generator_function_declaration name: (identifier) @name body: (_) @body) @definition.function
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body)]) @definition.function
(class_declaration name: (identifier) @name body: (class_body) @body) @definition.class
; a module's functions assigned at its top level (CommonJS, prototypes): `res.send = function
; send(body) {…}` -> `res.send`, `Foo.prototype.bar = function () {…}` -> `Foo.bar`,
; `exports.x = …` / `module.exports.x = …` -> `x`
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: (member_expression object: (identifier) @receiver property: (property_identifier) @_prototype)
        property: (property_identifier) @name)
      right: [(function_expression body: (_) @body) (arrow_function body: (_) @body)]) @definition.method)
  (#eq? @_prototype "prototype"))
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (identifier) @receiver property: (property_identifier) @name)
      right: [(function_expression body: (_) @body) (arrow_function body: (_) @body)]) @definition.function)
  (#not-match? @receiver "^(exports|module)$"))
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: [(identifier) @_exports (member_expression object: (identifier) @_module property: (property_identifier) @_exports)]
        property: (property_identifier) @name)
      right: [(function_expression body: (_) @body) (arrow_function body: (_) @body)]) @definition.function)
  (#eq? @_exports "exports"))
; ... and the functions of an object a module exports or names at its top level:
; `module.exports = { parse(x) {…}, stringify: (v) => … }` -> `parse`, `stringify`;
; `const api = { get(url) {…} }` -> `api.get`
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
      right: (object
        [(method_definition name: (property_identifier) @name body: (_) @body)
         (pair key: (property_identifier) @name
           value: [(function_expression body: (_) @body) (arrow_function body: (_) @body)])] @definition.function)))
  (#eq? @_module "module") (#eq? @_exports "exports"))
(program
  [(lexical_declaration (variable_declarator name: (identifier) @receiver value: (object
     [(method_definition name: (property_identifier) @name body: (_) @body)
      (pair key: (property_identifier) @name
        value: [(function_expression body: (_) @body) (arrow_function body: (_) @body)])] @definition.method)))
   (variable_declaration (variable_declarator name: (identifier) @receiver value: (object
     [(method_definition name: (property_identifier) @name body: (_) @body)
      (pair key: (property_identifier) @name
        value: [(function_expression body: (_) @body) (arrow_function body: (_) @body)])] @definition.method)))])
(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @name body: (_) @body) @definition.method)

; ---- inheritance
(class_declaration (class_heritage [(identifier) (member_expression)] @inherits))

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
((variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
  value: (call_expression
    function: (identifier) @_require arguments: (arguments . (string) @import.module .)) @import)
  (#eq? @_require "require"))
(call_expression function: (import) arguments: (arguments . (string) @import.module)) @import

[(comment) (html_comment)] @comment

; ---- JSX: using a component (capitalised element name) counts as calling it
((jsx_opening_element name: [(identifier) (member_expression)] @reference.call)
  (#match? @reference.call "^[A-Z]|[.]"))
((jsx_self_closing_element name: [(identifier) (member_expression)] @reference.call)
  (#match? @reference.call "^[A-Z]|[.]"))

; ---- typed names (receiver typing): `new T()` assignments and class fields
(variable_declarator name: (identifier) @type.var value: (new_expression constructor: [(identifier) (member_expression)] @type.call))
(field_definition property: (property_identifier) @type.var value: (new_expression constructor: [(identifier) (member_expression)] @type.call))
(assignment_expression
  left: (member_expression object: (this) property: (property_identifier)) @type.var
  right: (new_expression constructor: [(identifier) (member_expression)] @type.call))

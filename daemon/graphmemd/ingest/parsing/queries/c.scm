; graphmem extraction query for C (capture vocabulary: see parsing/parser.py). The C++ query
; is this file plus cpp.scm: every pattern here is valid in both grammars.

; ---- definitions: functions (through pointer return declarators), prototypes at file level
; (a prototype whose definition follows in the same file is dropped: fingerprints/c.toml),
; structs, unions, enums (named, or named by their typedef), function-like macros
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]
  body: (compound_statement) @body) @definition.function
((declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function
  (#set! def.parents "translation_unit preproc_if preproc_ifdef preproc_else preproc_elif preproc_elifdef declaration_list linkage_specification template_declaration field_declaration_list"))
(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @definition.enum
(type_definition
  type: [(struct_specifier !name body: (field_declaration_list) @body) (union_specifier !name body: (field_declaration_list) @body)]
  declarator: (type_identifier) @name) @definition.struct
(type_definition type: (enum_specifier !name body: (enumerator_list) @body) declarator: (type_identifier) @name) @definition.enum
; a function-like macro: at file level wherever it is written (the preprocessor knows no namespace)
((preproc_function_def name: (identifier) @name value: (preproc_arg)? @body) @definition.function
  (#set! def.toplevel))

; ---- calls (`p->f(x)` is `p.f`)
(call_expression function: (identifier) @reference.call arguments: (argument_list) @reference.call.args)
(call_expression
  function: (field_expression argument: (_) @reference.call.receiver field: (field_identifier) @reference.call)
  arguments: (argument_list) @reference.call.args)

; ---- imports: `#include "a.h"` -> module `a.h`; `#include <stdio.h>` -> module `<stdio.h>`
(preproc_include path: [(string_literal) (system_lib_string)] @import.module) @import

(comment) @comment


; graphmem: what a JavaScript, TypeScript or TSX code example in a knowledge file uses (see
; ingest/parsing/examples.py and languages.toml). A module specifier binds its last path segment.

(import_statement
  (import_clause (named_imports (import_specifier !alias name: (identifier) @import.name)))
  source: (string) @import.module) @import
(import_statement
  (import_clause (named_imports (import_specifier name: (identifier) @import.name alias: (identifier) @import.alias)))
  source: (string) @import.module) @import
(import_statement (import_clause (namespace_import (identifier) @import.alias)) source: (string) @import.module) @import
(import_statement (import_clause (identifier) @import.alias) source: (string) @import.module) @import

(call_expression function: (_) @call.function arguments: (arguments) @call.arguments)
(new_expression constructor: (_) @call.function arguments: (arguments) @call.arguments)
(spread_element) @call.splat

(member_expression) @use
(identifier) @use

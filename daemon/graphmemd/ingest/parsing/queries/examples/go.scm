; graphmem: what a Go code example in a knowledge file uses (see ingest/parsing/examples.py)

(import_spec name: (package_identifier) @import.alias path: (interpreted_string_literal) @import.module) @import
(import_spec !name path: (interpreted_string_literal) @import.module) @import

(call_expression function: (_) @call.function arguments: (argument_list) @call.arguments)
(variadic_argument) @call.splat

(selector_expression) @use
(identifier) @use
(type_identifier) @use
(qualified_type) @use

; graphmem: what a Python code example in a knowledge file uses (see ingest/parsing/examples.py)
; @import.module [@import.alias]: a module imported; @import.name: a name imported from it;
; @use: a name as used (the outermost dotted chain is kept); @call.function/@call.arguments:
; a call, whose @call.keyword names and @call.splat arguments are read from its arguments;
; @class.name: a class the example defines (@class: its bases and body are read from it).

(import_statement name: (dotted_name) @import.module) @import
(import_statement
  name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias)) @import
(import_from_statement module_name: (dotted_name) @import.module name: (dotted_name) @import.name) @import
(import_from_statement
  module_name: (dotted_name) @import.module
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import

(class_definition name: (identifier) @class.name) @class

(call function: (_) @call.function arguments: (argument_list) @call.arguments)
(keyword_argument name: (identifier) @call.keyword)
(list_splat) @call.splat
(dictionary_splat) @call.splat

(attribute) @use
(identifier) @use

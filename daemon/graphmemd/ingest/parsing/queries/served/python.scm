; graphmem: how a Python module serves names it does not define (see ingest/parsing/served.py;
; the per-language rules are in graph/data/served.toml). Run over one module's text at check
; time, never in the parse path.
;
; @hook (@hook.name, @hook.param, @hook.body): a function that may be the module's lazy hook
;   (served.toml's hook_name; one of a class is a method and is left out by the shell);
; @branch (@branch.test, @branch.body): an `if` or `elif` and the block it runs;
; @test.param + @test.name: a test that selects one name (`name == "x"`, `"x" == name`);
; @test.param + @test.collection: the names of a literal collection (`name in {"a", "b"}`);
; @test.param + @test.table: the names of a collection named there (`name in _DEPRECATED`);
; @table.name + @table.value: a collection's definition (at the module's level or in the hook);
; @return (@return.name): a return statement (and what it returns by a plain name);
; @import.module + @import.name [+ @import.alias]: `from M import N [as A]`;
; @string.joined: adjacent string literals, one string.

(function_definition
  name: (identifier) @hook.name
  parameters: (parameters . [(identifier) @hook.param (typed_parameter . (identifier) @hook.param)])
  body: (block) @hook.body) @hook

(if_statement condition: (_) @branch.test consequence: (block) @branch.body) @branch
(elif_clause condition: (_) @branch.test consequence: (block) @branch.body) @branch

(comparison_operator . (identifier) @test.param . "==" . (string) @test.name .)
(comparison_operator . (string) @test.name . "==" . (identifier) @test.param .)
(comparison_operator . (identifier) @test.param . "in" . [(set) (list) (tuple) (dictionary)] @test.collection .)
(comparison_operator . (identifier) @test.param . "in" . (identifier) @test.table .)

(assignment left: (identifier) @table.name right: [(set) (list) (tuple) (dictionary)] @table.value)

(return_statement) @return
(return_statement [(identifier) (attribute)] @return.name)

(import_from_statement
  module_name: [(dotted_name) (relative_import)] @import.module
  name: (dotted_name) @import.name)
(import_from_statement
  module_name: [(dotted_name) (relative_import)] @import.module
  name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias))

(concatenated_string) @string.joined

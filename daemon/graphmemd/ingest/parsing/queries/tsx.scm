; graphmem extraction query for TSX: appended to typescript.scm (see languages.py)

; ---- JSX: using a component (capitalised element name) counts as calling it
((jsx_opening_element name: [(identifier) (member_expression)] @reference.call)
  (#match? @reference.call "^[A-Z]|[.]"))
((jsx_self_closing_element name: [(identifier) (member_expression)] @reference.call)
  (#match? @reference.call "^[A-Z]|[.]"))

"""Knowledge files (agent instructions, decision records, documentation, shared notes): which
files are read (``selection``), their parsing into units with the references to code they
contain at exact spans (``markdown``, ``rst``, ``classify``, ``roles``; ``read.read_doc``:
bytes in, units out), shared notes' front matter (``notes``) and units' identity across edits
(``identity``). Pure: no I/O, no threads.
"""

"""``graphmem lsp``: a Language Server (stdio) that shows graphmem's notes where code is read.

It speaks gRPC to the user's daemon through ``graphmem.client.GraphMem`` (it never opens the
store). Pure cores, tested without I/O: ``positions`` (the daemon's symbol lines mapped onto
the open buffer by name and kind), ``present`` (hovers, code lenses, diagnostics, code actions),
``references`` (a knowledge file's references to code as diagnostics and quick fixes),
``settings``, ``roots`` (which repository a file belongs to), ``commands`` (argument checking)
and ``report`` (the JSON shapes of notes, recall results and status). The shell: ``gateway``
(the daemon connection, short deadlines, one message when it is down), ``follower`` (the
supervised event-stream thread) and ``server`` (pygls).
"""

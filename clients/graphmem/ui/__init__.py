"""The review page (``graphmem ui``, issue 44): a local web page over the daemon's gRPC API.

Pure cores (the import-linter contract ``ui-pure-cores`` keeps them free of the client, gRPC,
threads, sockets, processes and the web framework):

- ``model``: the view model: the review queue and its filters, a note's history, the overview
  counts, search rows, the neighbourhood picture as Cytoscape elements (kinds filtered,
  directories collapsed);
- ``diff``: the anchored code before and after as highlighted unified-diff rows (Pygments);
- ``guard``: who may ask what: the per-start token (URL, then cookie; a header on every
  state-changing request) and the Host header;
- ``links``: where "open in the editor" goes (``vscode://``, ``$EDITOR`` command lines).

The shell: ``gateway`` (the daemon calls, errors turned into messages for the page), ``web``
(Starlette routes, Jinja2 templates, server-sent events fed by the daemon's ``Subscribe``
stream), ``follower`` (the page's event follower: what changed since the queue was read),
``server`` (the free loopback port, the token, uvicorn, opening the browser).
Templates in ``templates/``, styles and scripts in ``static/`` (vendored ones in
``static/vendor/``, see ``VENDORED.md``).
"""

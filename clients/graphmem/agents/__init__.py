"""Connecting coding agents: ``graphmem setup CLIENT``, the lifecycle hooks and ``graphmem doctor``.

``table`` holds what each client documents (configuration places, formats, entry shapes, hook
events); ``jsonc``, ``tomledit`` and ``instructions`` are pure text edits; ``setup`` writes
them with backups so ``--undo`` restores every file; ``hook`` is the fast hook command.
"""

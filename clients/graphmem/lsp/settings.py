"""PURE: the language server's settings, from ``initializationOptions`` or
``workspace/didChangeConfiguration`` (both under an optional ``graphmem`` key):

    {"diagnosticSeverity": "hint" | {"stale": "information", "suspect": "hint",
                                     "reference": "warning", "suspectReference": "information",
                                     "deprecatedReference": "hint"},
     "notesAsMessage": true,   # graphmem.showNotes also shows the notes as a window message
     "clientPrompts": false,   # the client asks for a note's text itself (the VS Code extension)
     "user": "alice"}          # who confirms notes (default: the login name)

A single severity sets the notes' (stale and suspect); the references to code in knowledge
files (dangling or stale: ``reference``; suspect: ``suspectReference``; a name a module still
serves with a warning: ``deprecatedReference``, shown struck through; ``off`` hides them: the
editor's ``check --level``) are set by name only.
A value of the wrong type or an unknown severity is reported (one warning each) and the
setting keeps its previous value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

__all__ = ["Settings", "Severity", "parse_settings"]


class Severity(str, Enum):
    """How a stale or suspect note (or a reference in a knowledge file) shows as a diagnostic
    (``off``: not at all)."""

    ERROR = "error"
    WARNING = "warning"
    INFORMATION = "information"
    HINT = "hint"
    OFF = "off"


@dataclass(frozen=True, slots=True)
class Settings:
    """What the client configured."""

    stale: Severity = Severity.INFORMATION
    suspect: Severity = Severity.HINT
    reference: Severity = Severity.WARNING  # a dangling or stale reference in a knowledge file
    suspect_reference: Severity = Severity.INFORMATION
    #: a name gone but still served with a warning: a hint, struck through (as pyright and
    #: TypeScript show a use of a deprecated name)
    deprecated_reference: Severity = Severity.HINT
    notes_as_message: bool = True
    client_prompts: bool = False
    user: str = ""


#: ``diagnosticSeverity``'s keys and the settings they set.
_SEVERITY_KEYS = {
    "stale": "stale",
    "suspect": "suspect",
    "reference": "reference",
    "suspectReference": "suspect_reference",
    "deprecatedReference": "deprecated_reference",
}
_ALIASES = {"info": Severity.INFORMATION, "warn": Severity.WARNING, "none": Severity.OFF}


def _severity(value: object, key: str, warnings: list[str]) -> Severity | None:
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in _ALIASES:
            return _ALIASES[lowered]
        try:
            return Severity(lowered)
        except ValueError:
            pass
    choices = ", ".join(s.value for s in Severity)
    warnings.append(f"graphmem: {key} must be one of {choices} (got {value!r}); keeping the previous value")
    return None


def _flag(raw: Mapping[str, object], key: str, current: bool, warnings: list[str]) -> bool:
    if key not in raw:
        return current
    value = raw[key]
    if isinstance(value, bool):
        return value
    warnings.append(f"graphmem: {key} must be true or false (got {value!r}); keeping the previous value")
    return current


def parse_settings(raw: object, base: Settings) -> tuple[Settings, tuple[str, ...]]:
    """``base`` updated with what ``raw`` sets, and a warning for each value it could not use."""
    warnings: list[str] = []
    if isinstance(raw, Mapping) and isinstance(raw.get("graphmem"), Mapping):
        raw = raw["graphmem"]
    if not isinstance(raw, Mapping):
        return base, ()
    changes: dict[str, object] = {}
    sev = raw.get("diagnosticSeverity")
    if isinstance(sev, Mapping):
        for key, field in _SEVERITY_KEYS.items():
            if key in sev:
                found = _severity(sev[key], f"diagnosticSeverity.{key}", warnings)
                if found is not None:
                    changes[field] = found
    elif sev is not None:
        found = _severity(sev, "diagnosticSeverity", warnings)
        if found is not None:
            changes["stale"] = changes["suspect"] = found
    changes["notes_as_message"] = _flag(raw, "notesAsMessage", base.notes_as_message, warnings)
    changes["client_prompts"] = _flag(raw, "clientPrompts", base.client_prompts, warnings)
    user = raw.get("user")
    if isinstance(user, str):
        changes["user"] = user.strip()
    elif user is not None:
        warnings.append(f"graphmem: user must be a string (got {user!r}); keeping the previous value")
    return dataclasses.replace(base, **changes), tuple(warnings)  # type: ignore[arg-type]

"""Failures with the codes of the service's error catalogue (core/errors.ts).

The TypeScript workflow turns an activity's ApplicationFailure into the job's
error by its `type` (workflows/failures.ts), so a failure raised here carries
a catalogue code as its type, the catalogue's retryability, and the detail as
its first detail — exactly what activities/failures.ts does on the TS side.
"""

from __future__ import annotations

import os
import re
import tempfile

from .catalogue import CATALOGUE

# The codes this worker raises, with the catalogue's `retryable` flag and message (generated: recognizer/catalogue.py).
RETRYABLE = {code: entry.retryable for code, entry in CATALOGUE.items()}
MESSAGES = {code: entry.message for code, entry in CATALOGUE.items()}


class ServiceError(Exception):
    """A failure with a catalogue code; `detail` becomes the job error's details.detail."""

    def __init__(self, code: str, detail: str, message: str | None = None):
        if code not in RETRYABLE:
            raise ValueError(f"not a code this worker raises: {code}")
        super().__init__(message or MESSAGES[code])
        self.code = code
        self.detail = detail
        self.retryable = RETRYABLE[code]

    @property
    def message(self) -> str:
        return str(self.args[0])


# Where this machine's own files live (core/machine-paths.ts does the same on the TypeScript side).
_MACHINE_ROOTS = [p for p in {tempfile.gettempdir(), os.getcwd(), os.path.expanduser("~")} if len(p) > 1]
_MACHINE_PATH = re.compile("|".join(re.escape(root) + r"(?=$|[/\s'\"`:,;)])(?:/[^\s'\"`:,;)]*)?" for root in _MACHINE_ROOTS)) if _MACHINE_ROOTS else None


def without_machine_paths(text: str) -> str:
    """`text` with every absolute path under one of this machine's roots replaced by `<file>`."""
    return _MACHINE_PATH.sub("<file>", text) if _MACHINE_PATH else text

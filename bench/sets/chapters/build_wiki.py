"""Builds wiki-excerpts.json: one excerpt of about 800 words from each long article of WikiText-2's test and
validation splits, talks on one subject each and unrelated to each other (a hurricane, a song, a battleship, a road).

Source: WikiText-2 (Merity et al. 2016, "Pointer Sentinel Mixture Models"; Wikipedia's Good and Featured articles,
CC BY-SA 3.0) as the repository pytorch/examples carries it, `word_language_model/data/wikitext-2/test.txt` and
`valid.txt` at commit d5678bc8ac0cdd79dbd5e44d4130271018bcec4e (SHA-256 in SOURCES). The excerpts are an adaptation
of those articles and are shared under the same licence. Run with the two files' paths:
    python3 bench/sets/chapters/build_wiki.py test.txt valid.txt > bench/sets/chapters/wiki-excerpts.json
The excerpt's first sentence is drawn with a fixed seed, so the same files give the same set.

The split's tokenisation is undone (" @-@ " is "-", a space before punctuation is dropped), section headings are
left out (a talk does not announce its chapters), and WikiText's `<unk>` (its rare words: many names) is dropped,
which leaves the talks fewer of the names that mark a subject: harder for the chapters' words, not easier.
"""

import hashlib
import json
import random
import re
import sys

# The addresses' build script, beside this one: the same cut of an excerpt and the same sentence ends.
from build import SENTENCE_END, WORDS, excerpt

SOURCES = {
    "test.txt": "d790b833ef8cf03a90db7bf1271b7520b83c45ce07ba3c1a9699df81e239eca0",
    "valid.txt": "f0737ed31fc1329026e95cb8b98e19c2a182c39c240ab909dc31abf2f8af58e8",
}
ARTICLE = re.compile(r"^= ([^=].*) =$")
SECTION = re.compile(r"^= = .* = =$")


def detokenise(line: str) -> str:
    s = line.replace(" @-@ ", "-").replace(" @,@ ", ",").replace(" @.@ ", ".").replace("<unk>", "")
    s = re.sub(r"\s+([.,;:!?)\]])", r"\1", s)
    s = re.sub(r"([(\[])\s+", r"\1", s)
    s = re.sub(r'" ([^"]*?) "', r'"\1"', s)
    s = re.sub(r"\s+'(s|re|ve|ll|d|m)\b", r"'\1", s)
    s = re.sub(r"n '(t)\b", r"n'\1", s)
    s = re.sub(r"(\w) ’ (\w)", r"\1’\2", s)
    # What a dropped <unk> leaves: punctuation standing alone before more of it.
    s = re.sub(r"([.,;:]) (?=[,;:])", r"\1", s)
    return re.sub(r"\s+", " ", s).strip()


def articles(path: str) -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []
    for raw in open(path, encoding="utf-8"):
        line = raw.strip()
        if line == "" or SECTION.match(line):
            continue
        heading = ARTICLE.match(line)
        if heading:
            found.append((detokenise(heading.group(1)), []))
        elif found:
            found[-1][1].append(detokenise(line))
    return found


def main(paths: list[str]) -> None:
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
        if SOURCES.get(name) != digest:
            sys.exit(f"{path}: not the pinned WikiText-2 file (sha256 {digest})")
    rng = random.Random(53)
    excerpts = []
    for path in paths:
        for title, paragraphs in articles(path):
            sentences = [s.strip() for p in paragraphs for s in SENTENCE_END.split(p) if s.strip()]
            # Long enough for an excerpt that does not start in the first tenth.
            if sum(len(s.split()) for s in sentences) < WORDS + 100:
                continue
            picked = excerpt(sentences, rng)
            # A title WikiText wrote as `<unk>` alone is left empty.
            excerpts.append({"name": title or "(title not kept)", "sentences": picked})
    source = {
        "dataset": "WikiText-2 (Merity et al. 2016), test and validation splits",
        "licence": "CC BY-SA 3.0",
        "repository": "pytorch/examples",
        "commit": "d5678bc8ac0cdd79dbd5e44d4130271018bcec4e",
        "files": {f"word_language_model/data/wikitext-2/{n}": h for n, h in SOURCES.items()},
    }
    json.dump({"source": source, "excerpts": excerpts}, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])

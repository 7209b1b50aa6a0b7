"""Builds the evaluation sets of bench/sets/recipes.json from ../shared/asr-eval.

Each recipe says how to compose one recording from the real clips (read in
place, never copied into the repository) and from generated non-speech
(silence, white/pink/brown noise, a hum, music-like tones and chords). The
result is a 16 kHz mono wav and a truth file beside it that says where every
stretch is, what it is (speech with its clip, language, speaker and
reference; or the kind of non-speech) and the reference text of the whole.
Everything is deterministic: the same recipe gives the same bytes.

    .tools/venv-recognizer/bin/python bench/sets/compose.py [--out DIR] [SET ...]

Sets: composed (item 5: every word spoken, nothing else), mixed_language
(item 4), speakers (item 1); vocabulary (item 3) names clips as they are,
with the rare names said in them, and is read by bench/sets/evaluate.py. Output goes to
.data/eval-sets/<set>/<name>.wav and .json unless --out says otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import sys
import wave
from pathlib import Path

import numpy as np

SR = 16_000
# Sets that name clips to be used as they are (the vocabulary set: clips and the terms said in them).
CLIP_SETS = {"vocabulary"}
ROOT = Path(__file__).resolve().parents[2]
RECIPES = Path(__file__).with_name("recipes.json")
DEFAULT_ASR_EVAL = ROOT.parent / "shared" / "asr-eval"
# Speech is normalised to this level (RMS over its active frames) before a recipe's own level applies.
SPEECH_LEVEL_DBFS = -23.0


def asr_eval_dir() -> Path:
    return Path(os.environ.get("ASR_EVAL_DIR", str(DEFAULT_ASR_EVAL))).resolve()


def decode(path: Path) -> np.ndarray:
    from faster_whisper.audio import decode_audio

    return decode_audio(str(path), sampling_rate=SR).astype(np.float32)


def frame_rms_db(x: np.ndarray, frame: int = 320) -> np.ndarray:
    n = len(x) // frame
    if n == 0:
        return np.array([-120.0])
    f = x[: n * frame].reshape(n, frame)
    return 10 * np.log10(np.mean(f.astype(np.float64) ** 2, axis=1) + 1e-12)


def active_rms_db(x: np.ndarray) -> float:
    """RMS level of the frames within 35 dB of the loudest (speech, not the pauses between words)."""
    db = frame_rms_db(x)
    active = db[db > db.max() - 35]
    return float(10 * np.log10(np.mean(10 ** (active / 10)))) if len(active) else -120.0


def set_level(x: np.ndarray, dbfs: float) -> np.ndarray:
    return (x * 10 ** ((dbfs - active_rms_db(x)) / 20)).astype(np.float32)


def trim(x: np.ndarray, below_peak_db: float = 40.0) -> np.ndarray:
    """Cuts leading and trailing frames quieter than the peak by more than `below_peak_db`."""
    db = frame_rms_db(x)
    loud = np.nonzero(db > db.max() - below_peak_db)[0]
    if len(loud) == 0:
        return x
    return x[loud[0] * 320 : (loud[-1] + 1) * 320]


def pauses(x: np.ndarray, min_ms: int = 120, below_peak_db: float = 35.0) -> list[tuple[float, float]]:
    """Quiet stretches inside the clip (seconds), longest first: where a turn may be cut."""
    db = frame_rms_db(x)
    quiet = db < db.max() - below_peak_db
    out, start = [], None
    for i, q in enumerate(quiet):
        if q and start is None:
            start = i
        if not q and start is not None:
            if (i - start) * 20 >= min_ms and start > 0:
                out.append((start * 0.02, i * 0.02))
            start = None
    return sorted(out, key=lambda p: p[0] - p[1])


def split_at_pauses(x: np.ndarray, parts: int) -> list[np.ndarray]:
    """`parts` pieces of the clip, cut in the middle of the pause nearest to each equal share of its
    length; where no pause is within a third of a share, at the quietest 60 ms between words there."""
    if parts <= 1:
        return [x]
    dur = len(x) / SR
    share = dur / parts
    candidates = pauses(x, min_ms=80, below_peak_db=30.0)
    db = frame_rms_db(x)
    cuts: list[float] = []
    for k in range(1, parts):
        target = share * k
        near = [(a + b) / 2 for a, b in candidates if abs((a + b) / 2 - target) <= share / 3]
        if near:
            cuts.append(min(near, key=lambda m: abs(m - target)))
            continue
        lo, hi = int((target - share / 3) / 0.02), int((target + share / 3) / 0.02)
        smooth = np.convolve(db, np.ones(3) / 3, mode="same")
        cuts.append((lo + int(np.argmin(smooth[lo:hi]))) * 0.02 + 0.01)
    bounds = [0] + [int(c * SR) for c in sorted(cuts)] + [len(x)]
    return [x[a:b] for a, b in itertools.pairwise(bounds)]


def rng_for(recipe: str, index: int) -> np.random.Generator:
    seed = int.from_bytes(hashlib.sha256(f"{recipe}/{index}".encode()).digest()[:8], "little")
    return np.random.default_rng(seed)


def noise(kind: str, seconds: float, rng: np.random.Generator) -> np.ndarray:
    n = int(seconds * SR)
    white = rng.standard_normal(n)
    if kind == "white":
        x = white
    elif kind in ("pink", "brown"):
        spectrum = np.fft.rfft(white)
        f = np.fft.rfftfreq(n, 1 / SR)
        f[0] = f[1]
        spectrum /= np.sqrt(f) if kind == "pink" else f
        x = np.fft.irfft(spectrum, n)
    elif kind == "hum":
        t = np.arange(n) / SR
        x = sum(np.sin(2 * np.pi * 50 * h * t) / h for h in (1, 2, 3, 5)) + 0.05 * white
    else:
        raise ValueError(f"unknown noise {kind}")
    return (x / np.sqrt(np.mean(x**2))).astype(np.float32)


def music(kind: str, seconds: float, rng: np.random.Generator) -> np.ndarray:
    """Music-like audio: harmonic tones with envelopes (chords, a melody), a pulse of noise bursts (drums)."""
    n = int(seconds * SR)
    t = np.arange(n) / SR
    x = np.zeros(n)
    beat = 0.5  # 120 beats per minute
    roots = [220.0, 174.6, 196.0, 261.6]  # A F G C

    def note(freq: float, start: float, length: float, amp: float, harmonics: int = 6) -> None:
        a, b = int(start * SR), min(n, int((start + length) * SR))
        if a >= n:
            return
        tt = t[a:b] - start
        env = np.minimum(1, tt / 0.02) * np.exp(-tt * 2.5)
        tone = sum(np.sin(2 * np.pi * freq * h * tt) / h**1.2 for h in range(1, harmonics + 1))
        x[a:b] += amp * env * tone

    if kind in ("chords", "band"):
        for bar, start in enumerate(np.arange(0, seconds, 4 * beat)):
            root = roots[bar % len(roots)]
            for ratio in (1, 1.26, 1.5):
                note(root * ratio, start, 4 * beat, 0.3)
    if kind in ("melody", "band"):
        scale = [440.0, 493.9, 554.4, 587.3, 659.3, 740.0, 830.6, 880.0]
        for start in np.arange(0, seconds, beat / 2):
            note(scale[int(rng.integers(0, len(scale)))], start, beat / 2, 0.4, harmonics=4)
    if kind in ("band", "drums"):
        for start in np.arange(0, seconds, beat):
            a = int(start * SR)
            length = min(n - a, int(0.12 * SR))
            if length > 0:
                x[a : a + length] += rng.standard_normal(length) * np.exp(-np.arange(length) / (0.03 * SR)) * 0.8
    x = x / (np.sqrt(np.mean(x**2)) + 1e-9)
    return x.astype(np.float32)


class Composer:
    def __init__(self, name: str, clips_dir: Path):
        self.name = name
        self.clips_dir = clips_dir
        self.chunks: list[np.ndarray] = []
        self.stretches: list[dict] = []
        self.cursor = 0
        self.references: list[str] = []
        self._cache: dict[str, np.ndarray] = {}

    def clip(self, file: str) -> np.ndarray:
        if file not in self._cache:
            self._cache[file] = decode(self.clips_dir / file)
        return self._cache[file]

    def add(self, audio: np.ndarray, stretch: dict) -> None:
        start = self.cursor / SR
        self.chunks.append(audio)
        self.cursor += len(audio)
        stretch = {"start": round(start, 3), "end": round(self.cursor / SR, 3), **stretch}
        self.stretches.append(stretch)

    def part(self, index: int, p: dict) -> None:
        rng = rng_for(self.name, index)
        if "clip" in p:
            file = p["clip"]
            x = self.clip(file)
            if p.get("trim", False):
                x = trim(x)
            if "part" in p:
                x = split_at_pauses(trim(x), int(p["of"]))[int(p["part"]) - 1]
            x = set_level(x, p.get("level_dbfs", SPEECH_LEVEL_DBFS))
            lang = file.split("/")[0]
            ref_file = (self.clips_dir / file).with_suffix(".txt")
            whole = "part" not in p or int(p["of"]) == 1
            reference = ref_file.read_text(encoding="utf-8").strip() if whole else None
            if reference:
                self.references.append(reference)
            self.add(
                x,
                {
                    "kind": "speech",
                    "clip": file,
                    "language": lang,
                    "speaker": p.get("speaker", file),
                    **({"reference": reference} if reference else {"part": f"{p['part']}/{p['of']}"}),
                },
            )
        elif "silence" in p:
            self.add(np.zeros(int(float(p["silence"]) * SR), dtype=np.float32), {"kind": "silence"})
        elif "noise" in p:
            x = noise(p["noise"], float(p["seconds"]), rng) * 10 ** (p.get("level_dbfs", -35) / 20)
            self.add(x.astype(np.float32), {"kind": "noise", "noise": p["noise"], "level_dbfs": p.get("level_dbfs", -35)})
        elif "music" in p:
            x = music(p["music"], float(p["seconds"]), rng) * 10 ** (p.get("level_dbfs", -25) / 20)
            self.add(x.astype(np.float32), {"kind": "music", "music": p["music"], "level_dbfs": p.get("level_dbfs", -25)})
        elif "tone" in p:
            t = np.arange(int(float(p["seconds"]) * SR)) / SR
            x = np.sin(2 * np.pi * float(p["tone"]) * t) * np.sqrt(2) * 10 ** (p.get("level_dbfs", -25) / 20)
            self.add(x.astype(np.float32), {"kind": "tone", "tone": p["tone"]})
        else:
            raise ValueError(f"{self.name}: part {index} is not a clip, silence, noise, music or tone: {p}")

    def audio(self) -> np.ndarray:
        x = np.concatenate(self.chunks) if self.chunks else np.zeros(0, dtype=np.float32)
        return np.clip(x, -1.0, 1.0)


def expand_parts(recipe: dict) -> list[dict]:
    """A conversation recipe (`voices`: letter → clip, `turns`: "A1/2" = voice A's first half) as plain parts.

    Turns are the voices' clips cut at pauses, joined by `gap` seconds of silence
    (0: the next speaker starts the moment the last one stops).
    """
    if "parts" in recipe:
        return recipe["parts"]
    parts: list[dict] = []
    gap = float(recipe.get("gap", 0.7))
    for k, turn in enumerate(recipe["turns"]):
        voice, share = turn[0], turn[1:]
        part, of = (int(v) for v in share.split("/"))
        if k > 0 and gap > 0:
            parts.append({"silence": gap})
        parts.append({"clip": recipe["voices"][voice], "part": part, "of": of, "speaker": voice})
    return parts


def write_wav(path: Path, x: np.ndarray) -> None:
    pcm = np.round(np.clip(x, -1, 1) * 32767).astype("<i2")
    tmp = path.with_suffix(".tmp")
    with wave.open(str(tmp), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SR)
        w.writeframes(pcm.tobytes())
    os.replace(tmp, path)


def build_recording(set_name: str, recipe: dict, out_dir: Path, clips_dir: Path) -> dict:
    name = recipe["name"]
    c = Composer(f"{set_name}/{name}", clips_dir)
    for i, p in enumerate(expand_parts(recipe)):
        c.part(i, p)
    x = c.audio()
    out_dir.mkdir(parents=True, exist_ok=True)
    wav = out_dir / f"{name}.wav"
    write_wav(wav, x)
    speakers = []
    for s in c.stretches:
        if s["kind"] == "speech" and s["speaker"] not in speakers:
            speakers.append(s["speaker"])
    truth = {
        "set": set_name,
        "name": name,
        "audio": str(wav),
        "duration": round(len(x) / SR, 3),
        "language": recipe.get("language"),
        "speakers": speakers,
        "reference": " ".join(c.references),
        "stretches": c.stretches,
        **{k: v for k, v in recipe.items() if k not in ("name", "parts", "language", "turns", "voices", "gap")},
    }
    (out_dir / f"{name}.json").write_text(json.dumps(truth, ensure_ascii=False, indent=1), encoding="utf-8")
    return truth


def build(sets: list[str] | None = None, out: Path | None = None) -> dict[str, list[dict]]:
    recipes = json.loads(RECIPES.read_text(encoding="utf-8"))
    clips_dir = asr_eval_dir()
    out = out or ROOT / ".data" / "eval-sets"
    built: dict[str, list[dict]] = {}
    for set_name, entries in recipes.items():
        if set_name.startswith("_") or (sets and set_name not in sets):
            continue
        if set_name in CLIP_SETS:
            continue
        set_dir = out / set_name
        # A recording renamed or dropped from the recipes leaves no stale file behind to be measured.
        names = {r["name"] for r in entries}
        for old in set_dir.glob("*.*") if set_dir.is_dir() else []:
            if old.stem not in names:
                old.unlink()
        built[set_name] = [build_recording(set_name, r, set_dir, clips_dir) for r in entries]
    return built


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("sets", nargs="*")
    args = ap.parse_args()
    built = build(args.sets or None, args.out)
    for set_name, truths in built.items():
        total = sum(t["duration"] for t in truths)
        print(f"{set_name}: {len(truths)} recordings, {total:.0f} s", file=sys.stderr)
    print(json.dumps({k: [t["audio"] for t in v] for k, v in built.items()}))


if __name__ == "__main__":
    main()

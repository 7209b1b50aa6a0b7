"""Recognition accuracy per language on the whole evaluation set, beside faster-whisper's own call (issue 50).

    .tools/venv-recognizer/bin/python bench/sets/accuracy.py [--out FILE] [--only NAME,NAME] [--boot 2000]

The evaluation set is every clip of ../shared/asr-eval, ../shared/asr-eval-large and bench/sets/speech (real speech
with exact references; their MANIFEST.tsv say where each comes from). Each clip is decoded once per configuration,
the language given:

- `standard`, `fast`: the recognition worker's engine (recognizer/engine.py), the code jobs run;
- `floor`: faster-whisper's own `WhisperModel.transcribe` on the same audio with the same model, the profile's beam,
  word timestamps and its VAD: what a user of the library gets from one call;
- `floor-no-timestamps`: the same without timestamp tokens (`without_timestamps=True`);
- any engine variant named in VARIANTS (the choices weighed and rejected stay measurable).

Scores as ../shared/asr-eval/README.md says (NFKC, lower case, punctuation and symbols to spaces; WER, CER for ja
and ko), edits pooled over reference units. Every rate comes with a 95 % interval from a bootstrap over clips (the
clips of a language drawn with replacement, the same draws for every configuration), and every comparison with
the floor with the interval of the paired difference: a configuration is called worse (or better) than the floor
only when that interval lies wholly above (or below) zero. Seeded, so a run on the same code gives the same figures.

Prints one JSON object on stdout; the log goes to stderr.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from recognizer.audio import read_audio  # noqa: E402
from recognizer.decoding import PROFILES, Profile  # noqa: E402
from recognizer.engine import Engine, EngineSettings, RecognitionRequest  # noqa: E402
from recognizer.model import model_spec  # noqa: E402
from recognizer.scoring import edits, metric, units  # noqa: E402

SETS = [ROOT.parent / "shared" / "asr-eval", ROOT.parent / "shared" / "asr-eval-large", ROOT / "bench" / "sets" / "speech"]
LANGUAGES = ["en", "es", "fr", "de", "pt", "it", "ja", "ko"]
SEED = 20261129
# The goal for the pooled rate: this much below faster-whisper's own call, relative.
POOLED_GAIN_GOAL = 0.15
# Fewer clips than this in a language: its interval is reported, no verdict is drawn from it.
MIN_CLIPS_FOR_VERDICT = 5


def log(*args) -> None:
    print(*args, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ clips and scoring


@dataclasses.dataclass(frozen=True)
class Clip:
    lang: str
    file: str
    set: str
    audio_path: Path
    reference: str
    duration: float


def clips(sets: list[Path] = SETS) -> list[Clip]:
    out: list[Clip] = []
    for base in sets:
        with open(base / "MANIFEST.tsv", encoding="utf-8") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                audio = base / row["file"]
                out.append(
                    Clip(
                        lang=row["lang"],
                        file=row["file"],
                        set=base.name,
                        audio_path=audio,
                        reference=audio.with_suffix(".txt").read_text(encoding="utf-8").strip(),
                        duration=float(row["duration_s"]),
                    )
                )
    return out


class Bootstrap:
    """The same draws of clips, per language, for every configuration (paired comparisons)."""

    def __init__(self, counts: dict[str, int], rounds: int, seed: int = SEED):
        rng = np.random.default_rng(seed)
        self.draws = {lang: rng.integers(0, n, size=(rounds, n)) for lang, n in sorted(counts.items())}
        # Over all clips of all languages at once (the pooled rate): each language's clips drawn within it.
        self.rounds = rounds

    def rate(self, lang: str, edits: np.ndarray, refs: np.ndarray) -> tuple[float, float, float]:
        d = self.draws[lang]
        rates = edits[d].sum(axis=1) / np.maximum(1, refs[d].sum(axis=1))
        return float(edits.sum() / max(1, refs.sum())), float(np.percentile(rates, 2.5)), float(np.percentile(rates, 97.5))

    def difference(self, lang: str, a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> tuple[float, float, float]:
        """a's rate minus b's, with its interval."""
        d = self.draws[lang]
        ra = a[0][d].sum(axis=1) / np.maximum(1, a[1][d].sum(axis=1))
        rb = b[0][d].sum(axis=1) / np.maximum(1, b[1][d].sum(axis=1))
        point = a[0].sum() / max(1, a[1].sum()) - b[0].sum() / max(1, b[1].sum())
        diff = ra - rb
        return float(point), float(np.percentile(diff, 2.5)), float(np.percentile(diff, 97.5))

    def pooled(self, per_lang: dict[str, tuple[np.ndarray, np.ndarray]]) -> tuple[float, float, float, np.ndarray]:
        """Edits over units across every language, with its interval; and the rates of every round (for ratios)."""
        e = sum(v[0].sum() for v in per_lang.values())
        n = sum(v[1].sum() for v in per_lang.values())
        rounds_e = sum(v[0][self.draws[lang]].sum(axis=1) for lang, v in per_lang.items())
        rounds_n = sum(v[1][self.draws[lang]].sum(axis=1) for lang, v in per_lang.items())
        rates = rounds_e / np.maximum(1, rounds_n)
        return float(e / max(1, n)), float(np.percentile(rates, 2.5)), float(np.percentile(rates, 97.5)), rates


# ------------------------------------------------------------------ configurations


def engine_config(engine: Engine, profile: Profile) -> Callable[[np.ndarray, str], str]:
    def run(audio: np.ndarray, lang: str) -> str:
        PROFILES[profile.name] = profile
        return engine.recognize_audio(audio, RecognitionRequest(language=lang, profile=profile.name))["text"]

    return run


def floor_config(engine: Engine, beam: int, without_timestamps: bool) -> Callable[[np.ndarray, str], str]:
    def run(audio: np.ndarray, lang: str) -> str:
        segments, _info = engine.model.transcribe(
            audio,
            language=lang,
            beam_size=beam,
            word_timestamps=True,
            vad_filter=True,
            without_timestamps=without_timestamps,
        )
        return "".join(s.text for s in segments).strip()

    return run


def variants(engine: Engine) -> dict[str, Callable[[np.ndarray, str], str]]:
    """The engine's profiles, the floors at each profile's beam, and the variants weighed for the decoding path."""
    std, fast = PROFILES["standard"], PROFILES["fast"]
    out: dict[str, Callable[[np.ndarray, str], str]] = {
        "standard": engine_config(engine, std),
        "fast": engine_config(engine, fast),
        "floor": floor_config(engine, std.beam_size, without_timestamps=False),
        "floor-no-timestamps": floor_config(engine, std.beam_size, without_timestamps=True),
        "floor-fast": floor_config(engine, fast.beam_size, without_timestamps=False),
        "floor-fast-no-timestamps": floor_config(engine, fast.beam_size, without_timestamps=True),
    }
    for name, profile in VARIANTS.items():
        out[name] = engine_config(engine, profile)
    return out


# Decoding choices weighed against the profiles (issue 50): each a profile the engine can run. Kept after a choice
# is made so that `--only NAME` measures it again on the same clips.
VARIANTS: dict[str, Profile] = {
    # The decoding the profiles had before issue 50: the text with Whisper's timestamp tokens.
    "standard-timestamp-tokens": dataclasses.replace(PROFILES["standard"], name="standard-timestamp-tokens", timestamp_tokens=True),
    "fast-timestamp-tokens": dataclasses.replace(PROFILES["fast"], name="fast-timestamp-tokens", timestamp_tokens=True),
    # Wider or more patient beams: no better beyond the noise, and slower.
    "standard-beam8": dataclasses.replace(PROFILES["standard"], name="standard-beam8", beam_size=8),
    "standard-patience2": dataclasses.replace(PROFILES["standard"], name="standard-patience2", patience=2.0),
    # Greedy decoding for fast: worse than its floor in es and pt.
    "fast-beam1": dataclasses.replace(PROFILES["fast"], name="fast-beam1", beam_size=1),
}


# ------------------------------------------------------------------ the run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="also write the JSON here")
    ap.add_argument("--only", help="comma-separated configuration names (default: all)")
    ap.add_argument("--boot", type=int, default=2000, help="bootstrap rounds")
    ap.add_argument("--languages", help="comma-separated languages (default: all)")
    args = ap.parse_args()

    engine = Engine(model_spec(), EngineSettings())
    engine.warm_up()
    all_clips = [c for c in clips() if not args.languages or c.lang in args.languages.split(",")]
    configs = variants(engine)
    names = args.only.split(",") if args.only else list(configs)
    for n in ("floor",):
        if n not in names:
            names.insert(0, n)
    log(f"[accuracy] {len(all_clips)} clips, configurations: {', '.join(names)}")

    audio = {c.file + c.set: read_audio(str(c.audio_path)) for c in all_clips}
    hyps: dict[str, dict[str, str]] = {}
    seconds: dict[str, float] = {}
    for name in names:
        run = configs[name]
        t0 = time.monotonic()
        hyps[name] = {}
        for c in all_clips:
            hyps[name][c.set + "/" + c.file] = run(audio[c.file + c.set], c.lang)
        seconds[name] = time.monotonic() - t0
        log(f"[accuracy] {name}: {seconds[name]:.1f} s")

    by_lang: dict[str, list[Clip]] = {}
    for c in all_clips:
        by_lang.setdefault(c.lang, []).append(c)
    boot = Bootstrap({lang: len(cs) for lang, cs in by_lang.items()}, args.boot)
    counts: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = {}
    for name in names:
        counts[name] = {}
        for lang, cs in by_lang.items():
            e = np.array([edits(units(c.reference, lang), units(hyps[name][c.set + "/" + c.file], lang))[0] for c in cs])
            n = np.array([len(units(c.reference, lang)) for c in cs])
            counts[name][lang] = (e, n)

    result: dict = {
        "clips": len(all_clips),
        "audio_seconds": round(sum(c.duration for c in all_clips), 1),
        "bootstrap_rounds": args.boot,
        "seed": SEED,
        "languages": {
            lang: {
                "clips": len(cs),
                "metric": metric(lang),
                "reference_units": int(counts[names[0]][lang][1].sum()),
                "sets": sorted({c.set for c in cs}),
            }
            for lang, cs in sorted(by_lang.items(), key=lambda kv: LANGUAGES.index(kv[0]))
        },
        "configurations": {},
        "per_clip": [],
    }
    floor_pooled = boot.pooled(counts["floor"])
    for name in names:
        langs = {}
        for lang in result["languages"]:
            rate, lo, hi = boot.rate(lang, *counts[name][lang])
            entry = {"rate": round(rate, 4), "low": round(lo, 4), "high": round(hi, 4)}
            for floor in ("floor", "floor-no-timestamps", "floor-fast", "floor-fast-no-timestamps"):
                if floor in counts and floor != name:
                    d, dlo, dhi = boot.difference(lang, counts[name][lang], counts[floor][lang])
                    # A bootstrap over one or two clips has no spread to speak of: no verdict below MIN_CLIPS_FOR_VERDICT.
                    verdict = "worse" if dlo > 0 else "better" if dhi < 0 else "same"
                    if len(by_lang[lang]) < MIN_CLIPS_FOR_VERDICT:
                        verdict = "too few clips"
                    entry[f"vs_{floor}"] = {"difference": round(d, 4), "low": round(dlo, 4), "high": round(dhi, 4), "verdict": verdict}
            langs[lang] = entry
        pooled, plo, phi, rounds = boot.pooled(counts[name])
        gain = 1 - rounds / np.maximum(1e-9, floor_pooled[3])
        result["configurations"][name] = {
            "seconds": round(seconds[name], 1),
            "languages": langs,
            "pooled": {"rate": round(pooled, 4), "low": round(plo, 4), "high": round(phi, 4)},
            "pooled_gain_over_floor": {
                "gain": round(1 - pooled / max(1e-9, floor_pooled[0]), 4),
                "low": round(float(np.percentile(gain, 2.5)), 4),
                "high": round(float(np.percentile(gain, 97.5)), 4),
                "goal": POOLED_GAIN_GOAL,
            },
        }
    for c in all_clips:
        key = c.set + "/" + c.file
        ref = units(c.reference, c.lang)
        result["per_clip"].append(
            {
                "clip": key,
                "lang": c.lang,
                "units": len(ref),
                "reference": c.reference,
                **{name: {"edits": edits(ref, units(hyps[name][key], c.lang))[0], "text": hyps[name][key]} for name in names},
            }
        )
    text = json.dumps(result, ensure_ascii=False)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()

"""`python -m recognizer stream-eval DIR [DIR…]`: real-time recognition (streaming.py) on every clip of the eval sets,
beside the same clip recognised as a file by the job pipeline's engine (the baseline), with one model loaded once.
Prints one JSON object (bench/sections/streaming.ts renders it).

Each clip is streamed with 1 s of silence before it and 1.5 s after, as a real-time client would send it
(simulate_real_time). Latency of a segment: the stream's clock when it was ready, minus the end of the last word in
it. The file's latency: its recognition time after the clip's end (a file's words exist only once it is whole and
recognised).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from .audio import read_audio
from .engine import Engine, EngineSettings, RecognitionRequest
from .model import model_spec
from .scoring import error_count
from .speech import SAMPLE_RATE
from .streaming import StreamRecognizer, simulate_real_time

LEAD_S = 1.0
TAIL_S = 1.5
MAX_CLIP_S = 25.0


def clips(dirs: list[str]) -> list[tuple[str, str, Path]]:
    """(language, name, path) of every clip with a reference, in a stable order."""
    found = []
    for d in dirs:
        for lang_dir in sorted(Path(d).iterdir()):
            if not lang_dir.is_dir():
                continue
            for audio in sorted(lang_dir.iterdir()):
                if audio.suffix in {".ogg", ".wav", ".flac", ".mp3"} and audio.with_suffix(".txt").is_file():
                    found.append((lang_dir.name, f"{Path(d).name}/{lang_dir.name}/{audio.name}", audio))
    return found


def run(dirs: list[str]) -> dict[str, Any]:
    engine = Engine(model_spec(), EngineSettings.from_env())
    engine.warm_up()
    final_profile = engine.profile("fast")
    rows = []
    for lang, name, path in clips(dirs):
        audio = read_audio(str(path))
        seconds = len(audio) / SAMPLE_RATE
        if seconds > MAX_CLIP_S:
            continue
        reference = path.with_suffix(".txt").read_text(encoding="utf-8")
        streamed = np.concatenate([np.zeros(int(LEAD_S * SAMPLE_RATE), np.float32), audio, np.zeros(int(TAIL_S * SAMPLE_RATE), np.float32)])
        recognizer = StreamRecognizer(engine.decoder, lang, final_profile)
        segments, busy = simulate_real_time(recognizer, streamed)
        finals = [s for s in segments if s.kind == "final"]
        partials = [s for s in segments if s.kind == "partial"]
        stream_text = " ".join(s.text for s in finals)
        t0 = time.monotonic()
        result = engine.recognize(str(path), RecognitionRequest(language=lang, profile="fast"))
        file_seconds = time.monotonic() - t0
        stream_errors, units = error_count(reference, stream_text, lang)
        file_errors, _ = error_count(reference, str(result["text"]), lang)
        rows.append(
            {
                "clip": name,
                "language": lang,
                "seconds": round(seconds, 2),
                "units": units,
                "stream_errors": stream_errors,
                "file_errors": file_errors,
                "partial_latencies": [round(s.ready_at - s.speech_end, 3) for s in partials],
                "final_latencies": [round(s.ready_at - s.speech_end, 3) for s in finals],
                "finals": len(finals),
                "busy_seconds": round(busy, 3),
                "file_seconds": round(file_seconds, 3),
            }
        )
    return {"model": engine.name, "final_profile": final_profile.name, "threads": engine.settings.threads, "clips": rows}

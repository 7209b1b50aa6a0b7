"""Real-time recognition (recognizer/streaming.py) on every clip of the evaluation set under 25 s, beside the same clip
recognised as a file by the job pipeline's engine (the baseline), with one model loaded once.

    .tools/venv-recognizer/bin/python bench/sets/streaming.py

Prints one JSON object on stdout (bench/sections/streaming.ts renders it).

Each clip is streamed with 1 s of silence before it and 1.5 s after, as a real-time client would send it
(simulate_real_time). Latency of a segment: the stream's clock when it was ready, minus the end of the last word in
it. The file's latency: its recognition time after the clip's end (a file's words exist only once it is whole and
recognised).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The evaluation set as the accuracy figures read it (importing accuracy also puts the project on the path).
from accuracy import clips

from recognizer.audio import read_audio
from recognizer.engine import Engine, EngineSettings, RecognitionRequest
from recognizer.model import model_spec
from recognizer.scoring import error_count
from recognizer.speech import SAMPLE_RATE
from recognizer.streaming import StreamRecognizer, simulate_real_time

LEAD_S = 1.0
TAIL_S = 1.5
MAX_CLIP_S = 25.0


def run() -> dict[str, Any]:
    engine = Engine(model_spec(), EngineSettings.from_env())
    engine.warm_up()
    final_profile = engine.profile("fast")
    rows = []
    for clip in clips():
        if clip.duration > MAX_CLIP_S:
            continue
        lang = clip.lang
        audio = read_audio(str(clip.audio_path))
        silence = (np.zeros(int(LEAD_S * SAMPLE_RATE), np.float32), np.zeros(int(TAIL_S * SAMPLE_RATE), np.float32))
        recognizer = StreamRecognizer(engine.decoder, lang, final_profile)
        segments, busy = simulate_real_time(recognizer, np.concatenate([silence[0], audio, silence[1]]))
        finals = [s for s in segments if s.kind == "final"]
        partials = [s for s in segments if s.kind == "partial"]
        t0 = time.monotonic()
        result = engine.recognize(str(clip.audio_path), RecognitionRequest(language=lang, profile="fast"))
        file_seconds = time.monotonic() - t0
        stream_errors, units = error_count(clip.reference, " ".join(s.text for s in finals), lang)
        file_errors, _ = error_count(clip.reference, str(result["text"]), lang)
        rows.append(
            {
                "clip": f"{clip.set}/{clip.file}",
                "language": lang,
                "seconds": round(len(audio) / SAMPLE_RATE, 2),
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


if __name__ == "__main__":
    json.dump(run(), sys.stdout, ensure_ascii=False)

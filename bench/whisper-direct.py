"""The baseline of bench/asr.bench.ts: faster-whisper called directly, with the
recognition worker's settings (recognizer/engine.py: int8 on CPU, the same
thread count, beam 5, word timestamps, Silero VAD), on the same 16 kHz wav the
pipeline recognises. Loads the model once, then times `runs` transcriptions
(segments consumed to the end). Prints one JSON line.

    .tools/venv-recognizer/bin/python bench/whisper-direct.py FILE LANGUAGE RUNS
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from faster_whisper import WhisperModel

from recognizer.engine import EngineSettings, read_audio
from recognizer.model import model_spec


def main() -> None:
    path, language, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    settings = EngineSettings.from_env()
    t0 = time.monotonic()
    model = WhisperModel(
        str(model_spec().path),
        device=settings.device,
        compute_type=settings.compute_type,
        cpu_threads=settings.threads,
        num_workers=settings.workers,
        local_files_only=True,
    )
    load_s = time.monotonic() - t0
    audio = read_audio(path)
    times, text = [], ""
    for _ in range(runs):
        t = time.monotonic()
        segments, _info = model.transcribe(
            audio, language=language, beam_size=settings.beam_size, word_timestamps=True, vad_filter=True
        )
        text = "".join(s.text for s in segments).strip()
        times.append(time.monotonic() - t)
    print(json.dumps({"load_s": load_s, "runs_s": times, "text": text, "threads": settings.threads}))


if __name__ == "__main__":
    main()

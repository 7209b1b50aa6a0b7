"""The embedded language model's server: llama.cpp's own OpenAI-compatible HTTP server (chat completions),
run in this process by xllamacpp, for summaries when the operator has no endpoint of their own (LLM_BASE_URL).

    .tools/venv-llm/bin/python -m recognizer.llm_server --model FILE --port N [--threads T] [--context C]

It imports nothing else of the recognizer (its venv holds xllamacpp alone). One slot: a summary's prompt is long
and this machine has two cores, so requests take turns, and the model scales by running more of these processes.
It prints `llm ready: <address>` once it answers, and exits when its parent (LLM_PARENT_PID) is gone, as the
recognizer does, so a killed test run leaves no server behind.
"""

import argparse
import os
import signal
import sys
import threading
import time


def parent_watch(pid: int) -> None:
    """Ends this process when the process that started it is gone."""
    while True:
        time.sleep(1)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser(prog="recognizer.llm_server")
    parser.add_argument("--model", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    # A 10-minute talk is about 2,000 tokens; the prompt is cut to fit (domain/transcripts/summary.ts) well inside.
    parser.add_argument("--context", type=int, default=4096)
    args = parser.parse_args()
    # Without it, llama.cpp's OpenMP threads spin between requests and starve everything else on the machine.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = args.model
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.context
    params.n_parallel = 1
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.verbosity = -1
    server = xlc.Server(params)
    print(f"llm ready: {server.listening_address}", flush=True)
    parent = os.environ.get("LLM_PARENT_PID")
    if parent:
        threading.Thread(target=parent_watch, args=(int(parent),), daemon=True).start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    del server
    sys.exit(0)


if __name__ == "__main__":
    main()

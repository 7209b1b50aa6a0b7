#!/usr/bin/env bash
# Test-only tools from PyPI, pinned by version and hash (stack/python/test-tools.txt,
# made with `pip-compile --generate-hashes` from test-tools.in): schemathesis for
# the schema fuzzing in test/reliability/. Its own environment (.tools/venv-test),
# so nothing a test needs ends up next to what production runs.
# Run from the repo root (stack/test.sh calls it); a second run only compares a stamp.
VENV=.tools/venv-test
LOCK=stack/python/test-tools.txt
STAMP="$VENV/.installed-$(sha256sum "$LOCK" | cut -c1-16)"
if [ ! -f "$STAMP" ]; then
  echo "[setup] installing the test tools ($LOCK) into $VENV"
  rm -rf "$VENV"
  python3 -m venv "$VENV" \
    && "$VENV/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r "$LOCK" \
    && touch "$STAMP" \
    || { echo "[setup] installing the test tools failed (see above)" >&2; exit 1; }
fi

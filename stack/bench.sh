#!/usr/bin/env bash
# `npm run bench`: installs what is missing, then runs bench/run.ts on a private stack.
set -euo pipefail
cd "$(dirname "$0")/.."
source stack/setup.sh
exec node_modules/.bin/tsx bench/run.ts "$@"

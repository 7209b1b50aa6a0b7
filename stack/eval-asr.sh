#!/usr/bin/env bash
# `npm run eval:asr`: installs what is missing, then measures recognition quality on the
# real speech of ../shared/asr-eval through the whole job pipeline (bench/asr-eval.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
source stack/setup.sh
exec node_modules/.bin/tsx bench/asr-eval.ts "$@"

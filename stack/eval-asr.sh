#!/usr/bin/env bash
# `npm run eval:asr`: installs what is missing, then measures recognition quality on the
# real speech of ../shared/asr-eval through the whole job pipeline (bench/asr-eval.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
source stack/setup.sh
node_modules/.bin/tsx bench/asr-eval.ts "$@"
# The measurements (and the day they were made) are part of the OpenAPI document the API serves,
# so the generated clients follow them: test/clients.test.ts fails on clients older than the document.
bash stack/test-tools-setup.sh
exec node_modules/.bin/tsx stack/clients.ts generate

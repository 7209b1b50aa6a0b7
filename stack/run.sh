#!/usr/bin/env bash
# `bash stack/run.sh <command> [args]`: runs a command of the project (the
# package.json scripts that are not set-up scripts) with the project's Node.js
# (stack/node-setup.sh: the pinned LTS in .tools when the machine's is older).
set -euo pipefail
source "$(dirname "$0")/node-setup.sh"
exec "$@"

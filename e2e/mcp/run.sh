#!/usr/bin/env bash
# Builds deepresearch and runs the MCP end-to-end test against it with the
# official MCP TypeScript SDK as the client. Needs Node.js 20+ and npm.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
bin="$(mktemp -d)/deepresearch"
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$repo" && go build -o "$bin" ./cmd/deepresearch && go build -o "$(dirname "$bin")/askingmodel" ./e2e/askingmodel)
cd "$here"
npm ci --no-audit --no-fund
DEEPRESEARCH_BIN="$bin" DEEPRESEARCH_ASKER="$(dirname "$bin")/askingmodel" node --test --test-concurrency=1

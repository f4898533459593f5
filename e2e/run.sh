#!/usr/bin/env bash
# End-to-end tests of deepresearch serve with clients we did not write:
# builds the binary, serves the test corpus on a free loopback port with a
# fresh store and a bearer token, runs the node tests (openai, eventsource,
# headless Chromium), and stops the server. Needs Go, node >= 20, npm and
# Debian's chromium (apt-get install -y chromium); CHROMIUM overrides its
# path. Screenshots go to e2e/out/ (E2E_OUT). Arguments name the test
# files to run (default: all).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
tmp=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ ! -d "$here/node_modules" ]; then (cd "$here" && npm ci --no-audit --no-fund); fi
(cd "$root" && go build -o "$tmp/deepresearch" ./cmd/deepresearch && go build -o "$tmp/askingmodel" ./e2e/askingmodel && go build -o "$tmp/webdouble" ./e2e/webdouble)

: >"$tmp/serve.out"
token="e2e-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
DEEPRESEARCH_SERVE_TOKEN="$token" "$tmp/deepresearch" serve --addr 127.0.0.1:0 \
	--corpus "$root/testdata/corpus" --index "$tmp/index.db" --store "$tmp/runs.db" \
	>"$tmp/serve.out" 2>"$tmp/serve.err" &
pid=$!
url=
for _ in $(seq 1 300); do
	url=$(sed -n 's/^deepresearch: listening on //p' "$tmp/serve.out")
	[ -n "$url" ] && break
	kill -0 "$pid" 2>/dev/null || { cat "$tmp/serve.err" >&2; echo "e2e: the server did not start" >&2; exit 1; }
	sleep 0.1
done
[ -n "$url" ] || { echo "e2e: the server did not say where it listens" >&2; exit 1; }

status=0
if [ "$#" -eq 0 ]; then set -- ./*.test.js; fi
(cd "$here" && E2E_URL="$url" E2E_TOKEN="$token" E2E_BIN="$tmp/deepresearch" E2E_ASKER="$tmp/askingmodel" E2E_WEBDOUBLE="$tmp/webdouble" E2E_CORPUS="$root/testdata/corpus" node --test --test-concurrency=1 "$@") || status=$?
if [ "$status" -ne 0 ]; then echo "--- server log" >&2; cat "$tmp/serve.err" >&2; fi
exit "$status"

#!/usr/bin/env bash
# `npm test`: lint, typecheck and the whole ava suite against a real PostgreSQL and a real Temporal
# dev server that the harness starts on free ports (a running `npm start` is not disturbed).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
# The browser tests drive Debian's chromium; a fresh machine (CI) gets it here.
bash scripts/chromium.sh
# The caching-proxy test (test/web/cdn-proxy.test.ts) runs Debian's nginx: a fresh machine gets it here.
bash scripts/nginx.sh
# The workflow timing tests run on Temporal's Java test server (temporal/test-server.sh builds its
# launcher with Maven on first use): a fresh machine gets java and mvn here.
bash scripts/java.sh
# Node 24 and the npm dependencies first (node24.sh installs them when missing), so the checks and
# the suite below, which start at the same time, never install them at once.
bash scripts/node24.sh -e ''
# The lint (LINT=0 skips it: a quick run of a few files while the tree is being formatted) and the
# typecheck run alongside the suite instead of before it; their output is printed after the
# suite's, and a failure of either fails `npm test` as a failed test does.
CHECKS_LOG="$(mktemp)"
trap 'rm -f "$CHECKS_LOG"' EXIT
(
  set -e
  if [ "${LINT:-1}" != "0" ]; then
    bash scripts/lint.sh
  fi
  echo "[test] typecheck"
  # One thread: the suite keeps every core busy, and tsc's parallel checkers each redo the shared
  # declarations (10 s of CPU instead of 5.5).
  bash scripts/node24.sh node_modules/typescript/bin/tsc --noEmit -p . --singleThreaded
) >"$CHECKS_LOG" 2>&1 &
CHECKS=$!
echo "[test] suite (the lint and the typecheck run meanwhile; their output follows)"
SUITE=0
bash scripts/node24.sh test/harness.ts "$@" || SUITE=$?
CHECKED=0
wait "$CHECKS" || CHECKED=$?
cat "$CHECKS_LOG"
if [ "$CHECKED" -ne 0 ]; then
  echo "[test] the lint or the typecheck failed (above)" >&2
fi
if [ "$SUITE" -ne 0 ]; then exit "$SUITE"; fi
exit "$CHECKED"

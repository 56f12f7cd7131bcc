#!/usr/bin/env bash
# `npm test`: typecheck, then the whole ava suite against a real PostgreSQL and a real Temporal
# dev server that the harness starts on free ports (a running `npm start` is not disturbed).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
# The browser tests drive Debian's chromium; a fresh machine (CI) gets it here.
bash scripts/chromium.sh
# The workflow timing tests run on Temporal's Java test server (temporal/test-server.sh builds its
# launcher with Maven on first use): a fresh machine gets java and mvn here.
bash scripts/java.sh
# LINT=0 skips the lint step (a quick run of a few files while the tree is being formatted).
if [ "${LINT:-1}" != "0" ]; then
  bash scripts/lint.sh
fi
echo "[test] typecheck"
bash scripts/node24.sh node_modules/typescript/bin/tsc --noEmit -p .
echo "[test] suite"
exec bash scripts/node24.sh test/harness.ts "$@"

#!/usr/bin/env bash
# `npm run lint`: oxlint (ESLint's and typescript-eslint's recommended rules, .oxlintrc.json), the
# layers (dependency-cruiser, .dependency-cruiser.cjs) and oxfmt's check of the formatting
# (.oxfmtrc.json: Prettier's style). `npm run format` (this script with --write) formats the tree.
# dependency-cruiser is its own package in tools/lint (it parses TypeScript with the classic
# TypeScript API, which the project's TypeScript 7 no longer ships); it is installed here on first use.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OXFMT=(bash scripts/node24.sh node_modules/oxfmt/bin/oxfmt)
if [ "${1:-}" = "--write" ]; then
  exec "${OXFMT[@]}" src test bench
fi
echo "[lint] oxlint"
bash scripts/node24.sh node_modules/oxlint/bin/oxlint --max-warnings 0 .
echo "[lint] oxfmt --check"
"${OXFMT[@]}" --check src test bench
if [ ! -x tools/lint/node_modules/.bin/depcruise ]; then
  echo "[lint] installing dependency-cruiser (tools/lint)"
  npm ci --prefix tools/lint --no-audit --no-fund --loglevel=error
fi
echo "[lint] dependency-cruiser (the layers, .dependency-cruiser.cjs: no exceptions)"
bash scripts/node24.sh tools/lint/node_modules/dependency-cruiser/bin/dependency-cruise.mjs \
  --config .dependency-cruiser.cjs --output-type err src

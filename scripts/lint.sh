#!/usr/bin/env bash
# `npm run lint`: ESLint (typescript-eslint, the import layering rules) and Prettier's check.
# `npm run format` (this script with --write) formats the tree instead of checking it.
# The toolchain is its own package in tools/lint (typescript-eslint needs the classic TypeScript
# API, which the project's TypeScript 7 no longer ships); it is installed here on first use.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
if [ ! -x tools/lint/node_modules/.bin/eslint ] || [ ! -x tools/lint/node_modules/.bin/depcruise ]; then
  echo "[lint] installing the lint toolchain (tools/lint)"
  npm ci --prefix tools/lint --no-audit --no-fund --loglevel=error
fi
# --cache: a file whose content (and Prettier's options) is unchanged since a run found it formatted
# is not checked again (about 13 s of CPU for the whole tree otherwise; the cache is in
# node_modules/.cache/prettier).
PRETTIER=(bash scripts/node24.sh tools/lint/node_modules/prettier/bin/prettier.cjs --cache --cache-strategy content)
if [ "${1:-}" = "--write" ]; then
  exec "${PRETTIER[@]}" --write --log-level warn src test bench
fi
echo "[lint] eslint"
bash scripts/node24.sh tools/lint/node_modules/eslint/bin/eslint.js --max-warnings 0 .
echo "[lint] dependency-cruiser (the layers, .dependency-cruiser.cjs: no exceptions)"
bash scripts/node24.sh tools/lint/node_modules/dependency-cruiser/bin/dependency-cruise.mjs \
  --config .dependency-cruiser.cjs --output-type err src
echo "[lint] prettier --check"
"${PRETTIER[@]}" --check --log-level warn src test bench

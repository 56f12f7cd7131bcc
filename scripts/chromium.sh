#!/usr/bin/env bash
# Makes sure Debian's chromium-headless-shell is at /usr/bin/chromium-headless-shell for the
# browser tests (playwright-core drives it; we never download Playwright's own browser builds).
# The headless shell is Chromium's engine without the browser's UI layer: the same pages, the
# same DevTools protocol, about a quarter less CPU per test file than the full `chromium`.
# Installs it with apt when running as root; otherwise explains what to run.
set -euo pipefail
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium-headless-shell}"
if [ -x "$CHROMIUM" ]; then exit 0; fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "[chromium] installing Debian's chromium-headless-shell for the browser tests" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends chromium-headless-shell >&2
  exit 0
fi
echo "[chromium] $CHROMIUM is missing: the browser tests need it." >&2
echo "[chromium] install it as root: apt-get update && apt-get install -y chromium-headless-shell" >&2
echo "[chromium] (or point CHROMIUM_PATH at a Chromium binary)" >&2
exit 1

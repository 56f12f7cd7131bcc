#!/usr/bin/env bash
# Prints the path of a launcher for Temporal's Java test server (time skipping), built once into
# the user cache: Maven resolves io.temporal:temporal-test-server (temporal/test-server/pom.xml)
# and the launcher runs `java -cp <classpath> io.temporal.testserver.TestServer <port> [flags]`,
# the command line @temporalio/testing gives an `existing-path` test server.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
VERSION="$(sed -n 's:.*<version>\(1\.[0-9.]*\)</version>.*:\1:p' "$HERE/test-server/pom.xml" | head -1)"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/listing-directory/temporal-test-server-$VERSION"
OUT="$CACHE/test-server"
if [ -x "$OUT" ]; then echo "$OUT"; exit 0; fi
command -v java >/dev/null || { echo "java (17+) is required for Temporal's test server" >&2; exit 1; }
command -v mvn >/dev/null || { echo "mvn is required to fetch Temporal's test server" >&2; exit 1; }
mkdir -p "$CACHE"
mvn -q -f "$HERE/test-server/pom.xml" dependency:build-classpath -Dmdep.outputFile="$CACHE/classpath.txt" >&2
cat > "$OUT.tmp" <<LAUNCHER
#!/usr/bin/env bash
exec java -cp "\$(cat '$CACHE/classpath.txt')" io.temporal.testserver.TestServer "\$@"
LAUNCHER
chmod +x "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "$OUT"

#!/usr/bin/env bash
# Prints the path of a launcher for one OpenSearch node, built once into the user cache: Maven
# resolves the server and its modules (opensearch/node/pom.xml) from Maven Central, javac compiles
# OpenSearchNode.java against them, and the launcher runs
#   java -cp <classpath> listingdirectory.OpenSearchNode <home> <http port>
# OpenSearch 2.19 runs on Java 17 (scripts/java.sh installs it with Maven).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
VERSION="$(sed -n 's:.*<opensearch.version>\([0-9.]*\)</opensearch.version>.*:\1:p' "$HERE/node/pom.xml" | head -1)"
SOURCE_SUM="$(cat "$HERE/node/pom.xml" "$HERE/node/src/listingdirectory/OpenSearchNode.java" | sha256sum | cut -c1-12)"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/listing-directory/opensearch-$VERSION-$SOURCE_SUM"
OUT="$CACHE/opensearch-node"
if [ -x "$OUT" ]; then echo "$OUT"; exit 0; fi
command -v java >/dev/null || { echo "java (17+) is required for OpenSearch" >&2; exit 1; }
command -v mvn >/dev/null || { echo "mvn is required to fetch OpenSearch from Maven Central" >&2; exit 1; }
mkdir -p "$CACHE"
mvn -q -f "$HERE/node/pom.xml" dependency:build-classpath -Dmdep.outputFile="$CACHE/classpath.txt" >&2
javac -nowarn -d "$CACHE/classes" -cp "$(cat "$CACHE/classpath.txt")" "$HERE/node/src/listingdirectory/OpenSearchNode.java" >&2
cat > "$OUT.tmp" <<LAUNCHER
#!/usr/bin/env bash
# OPENSEARCH_HEAP sizes the JVM's heap (default 512m, enough for tests and a small directory).
exec java -Xms\${OPENSEARCH_HEAP:-512m} -Xmx\${OPENSEARCH_HEAP:-512m} -XX:+UseG1GC -Dlog4j2.disable.jmx=true \\
  -cp "$CACHE/classes:\$(cat '$CACHE/classpath.txt')" listingdirectory.OpenSearchNode "\$@"
LAUNCHER
chmod +x "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "$OUT"

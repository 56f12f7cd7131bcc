#!/usr/bin/env bash
# `npm run fuzz`: schemathesis against /api/v1/openapi.json of a service this script starts on
# loopback (`npm start` with its DATA_DIR in a temporary directory and free ports: embedded
# PostgreSQL, the Temporal dev server, the workers), with an all-scope API key made by the admin
# CLI. Passes when no response is a 5xx and every response matches the document (status code,
# content type, body schema). Prints the numbers at the end; exits non-zero on any failure.
#
# Settings (environment):
#   FUZZ_MAX_EXAMPLES  cases per operation and phase (default 120: about 5,800 cases over 39 operations)
#   FUZZ_MAX_TIME      wall-clock limit of the schemathesis run in seconds (default 1800); the
#                      numbers of a cut run still print (schemathesis' own --max-time would
#                      instead repeat the fuzzing phase until the budget is spent)
#   FUZZ_PHASES        schemathesis phases (default examples,coverage,fuzzing)
#   FUZZ_SEED          random seed, to replay a run (default: random)
#   FUZZ_INCLUDE       regex of paths to fuzz (default: every operation)
#   FUZZ_WORKERS       concurrent schemathesis workers (default 1)
#   FUZZ_FIXTURES      1: path parameters name a live listing of the fuzz account; 0: random (default 1)
#   FUZZ_REPORT_DIR    where the JSON / NDJSON reports go (default: a temporary directory)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/listing-directory"
VENV="$CACHE/schemathesis-venv"
SCHEMATHESIS_VERSION="${SCHEMATHESIS_VERSION:-4.32.5}"
CHECKS=not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance

log() { echo "[fuzz] $*" >&2; }

# schemathesis from PyPI into a virtualenv under the user cache (once per version).
ensure_schemathesis() {
  if [ -x "$VENV/bin/schemathesis" ] && "$VENV/bin/schemathesis" --version 2>/dev/null | grep -q " $SCHEMATHESIS_VERSION\$"; then return; fi
  if ! python3 -m venv --help >/dev/null 2>&1 || ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
      log "installing python3-venv"
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq >&2
      apt-get install -y -qq python3-venv >&2
    else
      log "python3 -m venv is missing: install it as root (apt-get install -y python3-venv)"
      exit 1
    fi
  fi
  log "installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" >&2
}

free_port() { bash scripts/node24.sh -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

ensure_schemathesis
TMP="$(mktemp -d "${TMPDIR:-/tmp}/ld-fuzz-XXXXXX")"
chmod 755 "$TMP" # embedded PostgreSQL runs as another user when we are root
REPORT_DIR="${FUZZ_REPORT_DIR:-$TMP/report}"
mkdir -p "$REPORT_DIR"
PORT="$(free_port)"
export DATA_DIR="$TMP/data" PORT BASE_URL="http://127.0.0.1:$PORT" HOST=127.0.0.1 LOG_LEVEL=warn
EMBEDDED_PG_PORT="$(free_port)" TEMPORAL_PORT="$(free_port)" TEMPORAL_UI_PORT="$(free_port)"
export EMBEDDED_PG_PORT TEMPORAL_PORT TEMPORAL_UI_PORT
# Quotas would answer 429 to most writes after the first few; they have their own tests.
export DRAFTS_MAX_IN_FLIGHT=100000 DRAFTS_MAX_PER_HOUR=100000 UPDATES_MAX_PER_LISTING_PER_HOUR=100000
# The web form's rate limit on sign-ins is not part of the API either.
export SIGNIN_MAX_FAILURES_PER_IP=100000 OAUTH_REGISTRATIONS_PER_IP=100000
# Fail every call whose result breaks its own output schema (a 500 the run reports).
export CHECK_OUTPUTS=true

SERVICE_PID=""
cleanup() {
  if [ -n "$SERVICE_PID" ] && kill -0 "$SERVICE_PID" 2>/dev/null; then
    kill -TERM "$SERVICE_PID" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$SERVICE_PID" 2>/dev/null || break; sleep 1; done
    kill -KILL "$SERVICE_PID" 2>/dev/null || true
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT

log "starting the service on $BASE_URL (data in $DATA_DIR)"
bash scripts/node24.sh src/main.ts start >"$TMP/service.log" 2>&1 &
SERVICE_PID=$!
for _ in $(seq 1 600); do
  if curl -fsS -o /dev/null "$BASE_URL/api/v1/openapi.json" 2>/dev/null; then break; fi
  if ! kill -0 "$SERVICE_PID" 2>/dev/null; then log "the service stopped:"; cat "$TMP/service.log" >&2; exit 1; fi
  sleep 1
done
curl -fsS -o /dev/null "$BASE_URL/api/v1/openapi.json" || { log "the service did not come up"; tail -50 "$TMP/service.log" >&2; exit 1; }

EMAIL="fuzz-$(date +%s)@example.com"
bash scripts/node24.sh src/main.ts admin users:create --email "$EMAIL" >&2
KEY="$(bash scripts/node24.sh src/main.ts admin keys:create --email "$EMAIL" --scopes account:read,listings:write,orders:write --name fuzz | tail -1)"
case "$KEY" in ld_*) ;; *) log "keys:create printed no key"; exit 1 ;; esac

# Real ids for the path parameters (FUZZ_FIXTURES=0: random ones, which mostly get 404).
CONFIG="$TMP/schemathesis.toml"
: >"$CONFIG"
if [ "${FUZZ_FIXTURES:-1}" != "0" ]; then
  { echo "[parameters]"; bash scripts/node24.sh scripts/fuzz-fixtures.ts "$EMAIL"; } >"$CONFIG"
  log "fixtures: $(tr '\n' ' ' <"$CONFIG")"
fi

ARGS=(--config-file "$CONFIG" run "$BASE_URL/api/v1/openapi.json"
  --header "Authorization: Bearer $KEY"
  --checks "$CHECKS"
  --max-examples "${FUZZ_MAX_EXAMPLES:-120}"
  --workers "${FUZZ_WORKERS:-1}"
  --phases "${FUZZ_PHASES:-examples,coverage,fuzzing}"
  --request-timeout 30
  --suppress-health-check all
  --continue-on-failure
  --report json,ndjson --report-dir "$REPORT_DIR")
[ -n "${FUZZ_SEED:-}" ] && ARGS+=(--seed "$FUZZ_SEED")
[ -n "${FUZZ_INCLUDE:-}" ] && ARGS+=(--include-path-regex "$FUZZ_INCLUDE")
log "schemathesis ${ARGS[*]//$KEY/ld_…}"
set +e
timeout --signal=INT --kill-after=30 "${FUZZ_MAX_TIME:-1800}" "$VENV/bin/schemathesis" "${ARGS[@]}"
STATUS=$?
set -e
"$VENV/bin/python" scripts/fuzz-summary.py "$REPORT_DIR" || STATUS=1
exit "$STATUS"

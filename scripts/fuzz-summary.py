"""Prints the numbers of a schemathesis run from its NDJSON event report (scripts/fuzz.sh).

Cases = requests schemathesis sent and checked; failures are counted per check, with one line
per distinct failing operation + check + status so each can become a regression test.
Exits 1 when any check failed.
"""
import collections
import glob
import json
import os
import sys

report_dir = sys.argv[1]
files = sorted(glob.glob(os.path.join(report_dir, "ndjson-*.ndjson")))
if not files:
    print("[fuzz] no report was written")
    sys.exit(1)

cases = 0
by_phase = collections.Counter()
by_status = collections.Counter()
failures = collections.Counter()
examples = {}
operations = set()
errors = 0
for line in open(files[-1], encoding="utf-8"):
    event = json.loads(line)
    kind, body = next(iter(event.items()))
    if kind == "NonFatalError":
        errors += 1
        print(f"[fuzz] error: {body.get('label')}: {str(body.get('info', ''))[:300]}")
    if kind != "ScenarioFinished":
        continue
    recorder = body["recorder"]
    operations.add(recorder["label"])
    for case_id, interaction in recorder.get("interactions", {}).items():
        cases += 1
        by_phase[body["phase"]] += 1
        response = interaction.get("response") or {}
        by_status[response.get("status_code", "none")] += 1
    for case_id, checks in recorder.get("checks", {}).items():
        for check in checks:
            if check["status"] != "failure":
                continue
            failures[check["name"]] += 1
            response = (recorder.get("interactions", {}).get(case_id) or {}).get("response") or {}
            key = (recorder["label"], check["name"], response.get("status_code"))
            if key not in examples:
                case = recorder.get("cases", {}).get(case_id, {}).get("value", {})
                failure = check.get("failure_info") or {}
                examples[key] = (case, failure)

print()
print("[fuzz] ===== results =====")
print(f"[fuzz] operations: {len(operations)}")
print(f"[fuzz] cases: {cases} ({', '.join(f'{p} {n}' for p, n in sorted(by_phase.items()))})")
print(f"[fuzz] responses by status: {', '.join(f'{s}: {n}' for s, n in sorted(by_status.items(), key=lambda x: str(x[0])))}")
server_errors = sum(n for s, n in by_status.items() if isinstance(s, int) and s >= 500)
print(f"[fuzz] server errors (5xx): {server_errors}")
for name in ("not_a_server_error", "response_schema_conformance", "status_code_conformance", "content_type_conformance"):
    print(f"[fuzz] failed {name}: {failures.get(name, 0)}")
print(f"[fuzz] schemathesis errors: {errors}")
for (label, check, status), (case, failure) in sorted(examples.items(), key=lambda x: str(x[0])):
    detail = json.dumps({k: case.get(k) for k in ("path_parameters", "query", "body", "headers") if case.get(k)}, ensure_ascii=False)
    print(f"[fuzz] FAIL {label} {check} -> {status}: {detail[:400]}")
    print(f"[fuzz]      {json.dumps(failure, ensure_ascii=False)[:400]}")
sys.exit(1 if failures or errors or server_errors else 0)

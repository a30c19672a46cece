#!/bin/sh
# ferry check / findings / waive / signoff / plugins from the command line, with an
# engagement-local plugin in .ferry/plugins/: identity across re-runs, waivers that
# survive edits, findings that disappear becoming fixed, SARIF validity, sign-off rules,
# and the audit chain recording it all.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
make_project "$p"
cat >"$p/util.py" <<'PY'
import torch


def sync():
    # torch.cuda.synchronize() in a comment is not code
    torch.cuda.synchronize()
    return "torch.cuda.synchronize() in a string"
PY
"$FERRY" init "$p" >/dev/null
mkdir -p "$p/.ferry/plugins"
cat >"$p/.ferry/plugins/sync.lua" <<'LUA'
return {
	id = "assess.local_sync",
	phase = "assess",
	title = "torch.cuda.synchronize() calls",
	severity = "error",
	category = "device",
	description = "Explicit device synchronisation must move to torch.npu.",
	triggers = { "synchronize" },
	query = [[(call function: (attribute object: (attribute) @mod attribute: (identifier) @fn)
	           (#eq? @mod "torch.cuda") (#eq? @fn "synchronize")) @call]],
	run = function(ctx)
		for _, file in ipairs(ctx.python_files()) do
			for _, m in ipairs(ctx.query(file)) do
				ctx.report{ file = file, node = m.call, message = "torch.cuda.synchronize() waits for a CUDA device",
				            suggestion = "Call torch.npu.synchronize() instead." }
			end
		end
	end,
}
LUA

expect_exit 0 "plugins lists the engagement's own plugin" -- "$FERRY" -C "$p" plugins --json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert any(x['id']=='assess.local_sync' for x in d['plugins'])" "$work/out" \
	&& ok "plugins --json has assess.local_sync" || fail "plugins --json"

expect_exit 0 "check --plugin with json output" -- "$FERRY" -C "$p" check --plugin assess.local_sync --format json
python3 - "$work/out" <<'PY' && ok "one finding, on code only, with every JSON field" || fail "check json"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
assert len(f) == 1, f
f = f[0]
for k in ("id", "plugin", "phase", "severity", "file", "line", "col", "end_line", "end_col", "message", "suggestion", "fixable", "status"):
    assert k in f, k
assert (f["file"], f["line"], f["col"]) == ("util.py", 6, 5), f
assert f["status"] == "open" and f["severity"] == "error" and f["fixable"] is False
PY
id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['findings'][0]['id'])" "$work/out")

# an edit elsewhere in the file moves the line: same finding, new line
sed -i '1i # a header comment' "$p/util.py"
expect_exit 0 "re-run after an edit elsewhere" -- "$FERRY" -C "$p" check --plugin assess.local_sync --format json
python3 - "$work/out" "$id" <<'PY' && ok "re-run keeps the finding's identity, updates its line" || fail "identity across re-runs"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert len(f) == 1 and str(f[0]["id"]) == sys.argv[2] and f[0]["line"] == 7, f
PY

expect_exit 1 "--fail-on error exits 1 with an open error" -- "$FERRY" -C "$p" check --plugin assess.local_sync --fail-on error
expect_exit 1 "signoff refused while an error is open" -- "$FERRY" -C "$p" signoff assess
expect_grep "open error" "$work/err" "signoff says why"
expect_exit 2 "waive without a reason is a usage error" -- "$FERRY" -C "$p" waive "$id"
expect_exit 0 "waive with a reason" -- "$FERRY" -C "$p" waive "$id" --reason "synchronisation kept for timing; client agreed"
sed -i '1i # another header' "$p/util.py"
expect_exit 0 "re-run after waiving" -- "$FERRY" -C "$p" check --plugin assess.local_sync --format json
python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['findings']; assert f[0]['status']=='waived', f" "$work/out" \
	&& ok "the waiver survives an edit elsewhere in the file" || fail "waiver lost"
expect_exit 0 "--fail-on error passes once waived" -- "$FERRY" -C "$p" check --plugin assess.local_sync --fail-on error
expect_exit 1 "design cannot be signed before assess" -- "$FERRY" -C "$p" signoff design
expect_exit 0 "signoff assess once its errors are waived" -- "$FERRY" -C "$p" signoff assess --note "reviewed"
expect_exit 1 "a second signoff is refused" -- "$FERRY" -C "$p" signoff assess

# the code is fixed by hand: the next run marks the finding fixed
sed -i 's/    torch.cuda.synchronize()/    torch.npu.synchronize()/' "$p/util.py"
expect_exit 0 "re-run after the manual fix" -- "$FERRY" -C "$p" check --plugin assess.local_sync
expect_exit 0 "findings --status fixed" -- "$FERRY" -C "$p" findings --status fixed --format json
python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['findings']; assert len(f)==1 and f[0]['status']=='fixed', f" "$work/out" \
	&& ok "a finding no longer seen becomes fixed" || fail "disappeared finding not fixed"

# SARIF 2.1.0: structure and locations
sed -i 's/    torch.npu.synchronize()/    torch.cuda.synchronize()/' "$p/util.py"
expect_exit 0 "check --format sarif --output" -- "$FERRY" -C "$p" check --plugin assess.local_sync --format sarif --output "$work/out.sarif"
python3 - "$work/out.sarif" <<'PY' && ok "SARIF 2.1.0 with rules and physical locations" || fail "SARIF"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["version"] == "2.1.0" and "sarif-2.1.0" in s["$schema"]
run = s["runs"][0]
rules = run["tool"]["driver"]["rules"]
assert rules[0]["id"] == "assess.local_sync" and rules[0]["shortDescription"]["text"]
assert rules[0]["help"]["text"]
r = run["results"][0]
assert r["ruleId"] == "assess.local_sync" and r["level"] == "error"
loc = r["locations"][0]["physicalLocation"]
assert loc["artifactLocation"]["uri"] == "util.py"
assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] >= 1
PY

schema="$top/build/tools/sarif-2.1.0-rtm.5.json"
if [ -f "$schema" ] && command -v node >/dev/null; then
	node "$top/tests/tools/validate-sarif.js" "$schema" "$work/out.sarif" >"$work/err" 2>&1 \
		&& ok "SARIF is valid against the SARIF 2.1.0 schema" || { fail "SARIF schema validation"; head -5 "$work/err"; }
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['runs'][0]['results'][0]['level']='severe'; json.dump(d,open(sys.argv[2],'w'))" \
		"$work/out.sarif" "$work/bad.sarif"
	node "$top/tests/tools/validate-sarif.js" "$schema" "$work/bad.sarif" >/dev/null 2>&1 \
		&& fail "the schema check rejects an invalid log" || ok "the schema check rejects an invalid log"
else
	fail "SARIF schema validator missing: run make sarif-tools (scripts/setup.sh does)"
fi

# a broken plugin is an error entry; the others still report
cat >"$p/.ferry/plugins/broken.lua" <<'LUA'
return { id = "assess.broken", phase = "assess", title = "broken", severity = "warning",
         run = function(ctx) error("deliberate failure") end }
LUA
expect_exit 3 "a run with a failing plugin exits 3 (the others are still stored)" -- "$FERRY" -C "$p" check --phase assess --format json
python3 - "$work/out" <<'PY' && ok "the failing plugin is reported, the others' findings arrive" || fail "plugin error isolation"
import json, sys
d = json.load(open(sys.argv[1]))
assert any("assess.broken" in e for e in d["plugin_errors"]), d["plugin_errors"]
assert any(f["plugin"] == "assess.local_sync" for f in d["findings"])
PY

expect_exit 0 "log --json lists the audit events" -- "$FERRY" -C "$p" log --json
python3 - "$work/out" <<'PY' && ok "check runs, waiver and sign-off are in the audit chain" || fail "audit events"
import json, sys
kinds = [e["kind"] for e in json.load(open(sys.argv[1]))["events"]]
for k in ("check", "waive", "signoff"):
    assert k in kinds, (k, kinds)
PY
# a consultancy's plugin may replace a bundled check, but never unseen: every check run
# warns, `ferry plugins` says so, and the check event records each plugin from outside
# ferry with its file's hash (above all the acceptance checks a sign-off runs)
mkdir -p "$p/.ferry/plugins/tune"
printf 'return { id = "tune.acceptance", phase = "tune", title = "acceptance", severity = "error", run = function(ctx) end }\n' \
	>"$p/.ferry/plugins/tune/acceptance.lua"
expect_exit 0 "a check with a replaced bundled check runs" -- "$FERRY" -C "$p" check --plugin tune.acceptance
expect_grep "tune.acceptance .*replaces the check of that id bundled with ferry" "$work/err" "the check run warns that a bundled check was replaced"
"$FERRY" -C "$p" plugins --format json >"$work/pl.json" 2>/dev/null
"$FERRY" -C "$p" log --events --format json >"$work/ev.json" 2>/dev/null
python3 - "$work/pl.json" "$work/ev.json" "$p/.ferry/plugins/tune/acceptance.lua" <<'PY' && ok "plugins and the audit event name the replacement and its hash" || fail "replaced check not recorded"
import hashlib, json, sys
sha = hashlib.sha256(open(sys.argv[3], "rb").read()).hexdigest()
pl = [x for x in json.load(open(sys.argv[1]))["plugins"] if x["id"] == "tune.acceptance"][0]
assert pl["replaces_bundled"] and pl["sha256"] == sha, pl
ev = json.load(open(sys.argv[2]))
ev = ev["events"] if isinstance(ev, dict) else ev
checks = sorted((e for e in ev if e["kind"] == "check"), key=lambda e: e["seq"])
local = checks[-1]["data"]["local_plugins"]
assert any(x["id"] == "tune.acceptance" and x["replaces"] and x["sha256"] == sha for x in local), local
PY
rm -r "$p/.ferry/plugins/tune"

expect_exit 0 "verify after all of it" -- "$FERRY" -C "$p" verify

finish

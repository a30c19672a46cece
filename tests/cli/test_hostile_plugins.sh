#!/bin/sh
# Hostile plugins (tests/plugins/hostile/) against the real binary: each must end within
# seconds with an error for that plugin alone, on stderr, in the JSON and SARIF output,
# with exit 3, and without closing the plugin's earlier findings. Engagement plugins may
# run programs only once the engagement allows them (plugins.allow_exec).
. "$(dirname "$0")/lib.sh"

hostile="$top/tests/plugins/hostile"
p="$work/proj"
make_project "$p"
"$FERRY" init "$p" >/dev/null
mkdir -p "$p/.ferry/plugins"

# plant NAME: the fixture is the engagement's only own plugin
plant() {
	rm -f "$p/.ferry/plugins/"*.lua
	cp "$hostile/$1.lua" "$p/.ferry/plugins/"
}

# contained ID WHAT DESC: ferry check --plugin ID ends in time with WHAT as the plugin's error
contained() {
	start=$(date +%s)
	timeout 90 "$FERRY" -C "$p" check --plugin "$1" --format json >"$work/out" 2>"$work/err"
	got=$?
	took=$(($(date +%s) - start))
	if [ "$got" -eq 3 ] && [ "$took" -lt 30 ] && grep -q "plugin $1 .*$2" "$work/err" &&
		python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert any('$1' in e for e in d['plugin_errors'])" "$work/out"; then
		ok "$3 (${took}s)"
	else
		fail "$3: exit $got after ${took}s"
		sed 's/^/     | /' "$work/err" | head -5
	fi
}

for f in xpcall_handler table_move big_find big_utf8 big_rep; do
	plant "$f"
	contained "assess.hostile_$f" "instruction budget exceeded" "$f is stopped by the budget"
done
for f in find match gsub gmatch; do
	plant "pattern_$f"
	contained "assess.hostile_pattern_$f" "string.$f: the pattern .* could backtrack" "a pathological pattern in string.$f is refused"
done
plant pattern_lines
contained assess.hostile_pattern_lines "string.gmatch: the pattern .* could backtrack" "a pattern scanning a whole text per start is refused"
if grep -qF "the pattern '([^\n]*)\n' could" "$work/err" && [ "$(grep -c . "$work/err")" -le 2 ]; then
	ok "a refused pattern's newline is escaped, on one line"
else
	fail "a refused pattern with a newline breaks the error line"
	sed 's/^/     | /' "$work/err" | head -5
fi
plant slow_pattern
expect_exit 0 "a plugin time limit can be set" -- "$FERRY" -C "$p" config plugins.time_limit 3
contained assess.hostile_slow_pattern "time limit exceeded (3 s)" "a plugin busy in library calls is stopped by the wall clock"

# A plugin that crashes keeps its findings; its error is on stderr, in JSON and SARIF, exit 3.
plant crash_later
id=assess.hostile_crash_later
expect_exit 1 "the plugin reports its finding first" -- "$FERRY" -C "$p" check --plugin $id --fail-on error
touch "$p/CRASH"
expect_exit 3 "a crashed plugin makes the run exit 3, even with --fail-on" -- "$FERRY" -C "$p" check --plugin $id --fail-on error
expect_grep "plugin $id .*crashed on purpose" "$work/err" "the crash is on stderr"
if grep -q "crashed on purpose" "$work/out"; then fail "the crash is printed on stdout"; else ok "stdout holds no error"; fi
expect_exit 0 "findings lists open findings" -- "$FERRY" -C "$p" findings --plugin $id --status open --format json
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['findings']) == 1, d" "$work/out" \
	&& ok "the crashed plugin's finding stays open" || fail "the crashed plugin's finding was closed"
expect_exit 3 "check --format sarif with a crashed plugin" -- "$FERRY" -C "$p" check --plugin $id --format sarif --output "$work/c.sarif"
python3 - "$work/c.sarif" "$id" <<'PY' && ok "SARIF names the failed plugin in toolExecutionNotifications" || fail "SARIF invocations"
import json, sys
inv = json.load(open(sys.argv[1]))["runs"][0]["invocations"][0]
assert inv["executionSuccessful"] is False, inv
n = inv["toolExecutionNotifications"]
assert n[0]["descriptor"]["id"] == sys.argv[2] and "crashed on purpose" in n[0]["message"]["text"], n
PY
rm -f "$p/CRASH"
expect_exit 0 "a clean run is successful in SARIF" -- "$FERRY" -C "$p" check --plugin $id --format sarif --output "$work/ok.sarif"
python3 -c "import json,sys; i=json.load(open(sys.argv[1]))['runs'][0]['invocations'][0]; assert i['executionSuccessful'] is True and i['toolExecutionNotifications'] == []" "$work/ok.sarif" \
	&& ok "executionSuccessful is true without failures" || fail "SARIF invocations of a clean run"

# Program execution is opt-in per engagement for plugins not bundled with ferry.
plant exec
id=environment.hostile_exec
expect_exit 0 "plugins --json" -- "$FERRY" -C "$p" plugins --json
python3 - "$work/out" "$id" <<'PY' && ok "plugins --json: the engagement plugin may not execute, bundled ones may" || fail "plugins --json exec fields"
import json, sys
ps = {x["id"]: x for x in json.load(open(sys.argv[1]))["plugins"]}
assert ps[sys.argv[2]]["needs_exec"] is True and ps[sys.argv[2]]["may_exec"] is False, ps[sys.argv[2]]
assert all(x["may_exec"] == x["needs_exec"] for x in ps.values() if x["origin"].startswith("embedded:"))
PY
expect_exit 0 "plugins (text)" -- "$FERRY" -C "$p" plugins
expect_grep "^$id .* no-exec " "$work/out" "the text listing marks the plugin as not allowed to execute"
cd "$work" # a program the plugin runs starts in ferry's folder
expect_exit 3 "a plain check with a non-allowed exec plugin" -- "$FERRY" -C "$p" check --plugin $id
expect_grep "does not allow plugin $id to run programs" "$work/err" "the plugin's run is an error naming the setting"
[ ! -e "$work/EXECUTED" ] && ok "no program ran" || fail "the plugin ran a program without being allowed"
expect_exit 0 "allow it" -- "$FERRY" -C "$p" config plugins.allow_exec assess.other $id
expect_exit 0 "plugins (text) after allowing" -- "$FERRY" -C "$p" plugins
expect_grep "^$id .* exec " "$work/out" "the text listing marks the plugin as allowed"
expect_exit 0 "check with the allowed plugin" -- "$FERRY" -C "$p" check --plugin $id
[ -e "$work/EXECUTED" ] && ok "the allowed plugin ran its program" || fail "the allowed plugin could not run"
expect_exit 0 "log --json" -- "$FERRY" -C "$p" log --json
python3 - "$work/out" "$id" <<'PY' && ok "allowing execution is in the audit chain" || fail "allow_exec not audited"
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["events"] if e["kind"] == "config"]
assert any(sys.argv[2] in json.dumps(e) and "plugins.allow_exec" in json.dumps(e) for e in ev), ev
PY

# Bad values from a plugin are refused or bounded for that plugin; the rest of the run is
# stored. crash_later (without CRASH) stands for the well-behaved plugins of the run.
plant_with_good() {
	plant "$1"
	cp "$hostile/crash_later.lua" "$p/.ferry/plugins/"
}
# bounded NAME WHAT DESC: check --phase assess stores the good plugin's finding and names
# WHAT as the hostile plugin's error, exit 3
bounded() {
	start=$(date +%s)
	timeout 120 "$FERRY" -C "$p" check --phase assess --format json >"$work/out" 2>"$work/err"
	got=$?
	took=$(($(date +%s) - start))
	if [ "$got" -eq 3 ] && grep -q "plugin assess.hostile_$1 .*$2" "$work/err" &&
		python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert any(f['plugin']=='assess.hostile_crash_later' and f['status']=='open' for f in d['findings'])" "$work/out"; then
		ok "$3 (${took}s)"
	else
		fail "$3: exit $got after ${took}s"
		sed 's/^/     | /' "$work/err" | head -5
	fi
}
# the floods are bounded by their caps, not by the 3 s limit set above (which a loaded
# machine or a sanitizer build can reach first)
"$FERRY" -C "$p" config plugins.time_limit 120 >/dev/null
plant_with_good flood_big
bounded flood_big "report: message is 1048576 bytes; the limit is 65536" "1 MiB messages are refused"
plant_with_good flood_total
bounded flood_total "handed over more than 64 MiB" "the bytes one plugin hands over are bounded"
plant_with_good flood_count
bounded flood_count "more than 100000 findings" "a million findings are refused"
plant_with_good bad_numbers
touch "$p/NAN"
bounded bad_numbers "metric broken: the value must be a finite number" "a NaN metric is the plugin's error, not a failed write"
rm "$p/NAN"
touch "$p/INF"
bounded bad_numbers "metric broken: the value must be a finite number" "an infinite metric is refused"
rm "$p/INF"
touch "$p/HUGE"
bounded bad_numbers "report: line is out of range" "a line beyond any file is refused"
rm "$p/HUGE"
plant follows_other
expect_exit 0 "a finding following a site in another file is stored" -- "$FERRY" -C "$p" check --plugin assess.hostile_follows_other --format json
python3 - "$work/out" <<'PY' && ok "its fingerprint comes from its own file's text (three findings, three lines)" || fail "follows in another file"
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["findings"] if f["plugin"] == "assess.hostile_follows_other"]
assert sorted(f["line"] for f in fs) == [1, 2, 3], fs
PY
plant fix_reads
expect_exit 0 "a fix function that reads another file" -- "$FERRY" -C "$p" check --plugin assess.hostile_fix_reads --format json
python3 - "$work/out" <<'PY' && ok "the findings it fixes keep their identity (three findings, three lines)" || fail "fix function reading another file"
import json, sys
fs = [f for f in json.load(open(sys.argv[1]))["findings"] if f["plugin"] == "assess.hostile_fix_reads"]
assert sorted(f["line"] for f in fs) == [1, 2, 3], fs
PY
plant_with_good bad_numbers
touch "$p/FOLLOWS_OUT"
bounded bad_numbers "report: follows\[1\]: .*outside" "a followed site outside the project is refused"
rm "$p/FOLLOWS_OUT"
touch "$p/FOLLOWS_BAD"
bounded bad_numbers "report: follows\[1\].node has no position" "a followed site without a position is refused"
rm "$p/FOLLOWS_BAD"
expect_exit 0 "status --json" -- "$FERRY" -C "$p" status --json
python3 -c "import json,sys; d=open(sys.argv[1]).read(); assert '\"fine\"' in d" "$work/out" \
	&& ok "the metrics recorded before the bad one are stored" || fail "metrics of the run lost"

# Invalid UTF-8 and escape sequences from a plugin, and a client file named with one.
plant_with_good bad_text
esc=$(printf '\033')
printf 'x = 1\n' >"$p/evil${esc}[2J.py"
expect_exit 0 "a plugin handing over bad text" -- "$FERRY" -C "$p" check --phase assess --format json
python3 - "$work/out" <<'PY' && ok "JSON output is valid UTF-8; bad bytes became U+FFFD, controls visible" || fail "JSON with bad text"
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
fs = [f for f in d["findings"] if f["plugin"] == "assess.hostile_bad_text"]
assert fs, d
m = fs[0]["message"]
assert "\ufffd" in m and "\x1b" not in m and "\\x1b[2J" in m and "\x00" not in m, repr(m)
assert "\x85" not in fs[0]["suggestion"] and "\\u0085" in fs[0]["suggestion"], repr(fs[0]["suggestion"])
PY
expect_exit 0 "SARIF with bad text" -- "$FERRY" -C "$p" check --phase assess --format sarif --output "$work/t.sarif"
python3 -c "import json,sys; json.loads(open(sys.argv[1],'rb').read().decode('utf-8'))" "$work/t.sarif" \
	&& ok "SARIF output is valid UTF-8 JSON" || fail "SARIF with bad text"
for fmt in md html json csv; do
	expect_exit 0 "report --format $fmt" -- "$FERRY" -C "$p" report --format $fmt --output "$work/r.$fmt"
	python3 -c "import sys; t=open(sys.argv[1],'rb').read().decode('utf-8'); assert '\x1b]0;owned' not in t and '\x1b[2J bytes' not in t" "$work/r.$fmt" \
		&& ok "report $fmt is valid UTF-8 without the plugin's escape sequences" || fail "report $fmt with bad text"
done
expect_exit 0 "check (text) with bad text" -- "$FERRY" -C "$p" check --phase assess
if grep -q "$esc" "$work/out"; then fail "text output carries a raw escape character"; else ok "text output escapes control characters (messages and file names)"; fi
expect_grep 'evil\\x1b\[2J.py' "$work/out" "the file name is shown with its escape made visible"
touch "$p/FAIL"
expect_exit 3 "a plugin failing with bad text" -- "$FERRY" -C "$p" check --phase assess --format json
python3 - "$work/out" <<'PY' && ok "the plugin's error in JSON is valid UTF-8 without raw escapes" || fail "error text"
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
e = [x for x in d["plugin_errors"] if "hostile_bad_text" in x]
assert e and "\x1b" not in e[0] and "\ufffd" in e[0], d["plugin_errors"]
PY
if grep -q "$esc" "$work/err"; then fail "stderr carries a raw escape character"; else ok "stderr escapes control characters"; fi
rm -f "$p/FAIL" "$p/evil${esc}[2J.py"

# A query whose compilation would take minutes is a load error, at once.
plant slow_query
start=$(date +%s)
expect_exit 0 "plugins with a costly query" -- timeout 60 "$FERRY" -C "$p" plugins
[ $(($(date +%s) - start)) -lt 10 ] && ok "the costly query is refused quickly" || fail "the costly query took $(($(date +%s) - start))s"
expect_grep "slow_query.lua: query: too many quantifiers" "$work/err" "the load error names the file and the reason"

# Odd files never disable checks silently: a 20 MB generated module (made here, never
# committed) is skipped with a warning naming it, every check still reports the other files.
rm -f "$p/.ferry/plugins/"*.lua
python3 - "$p/big_pb2.py" <<'PY'
import sys
with open(sys.argv[1], "w") as out:
    out.write("import torch\n")
    i = 0
    while out.tell() < 20 * 1024 * 1024:
        out.write(f"v{i} = torch.tensor([{i}, 2, 3]).cuda()  # device cuda:0 nccl\n")
        i += 1
PY
expect_exit 0 "a full check with a 20 MB module" -- timeout 300 "$FERRY" -C "$p" check --format json
python3 - "$work/out" <<'PY' && ok "the module is named as skipped, no check fails, train.py is still checked" || fail "20 MB module"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["plugin_errors"] == [], d["plugin_errors"]
big = [f for f in d["findings"] if f["file"] == "big_pb2.py"]
assert any(f["plugin"] == "ferry.source" and "too large to analyse" in f["message"] for f in big), big
assert any(f["file"] == "train.py" and f["plugin"] == "assess.device_calls" for f in d["findings"])
PY
rm -f "$p/big_pb2.py"
# A file with more matches than a check can hold is skipped by that check alone.
python3 -c "import sys; open(sys.argv[1], 'w').write('x = [' + '1, ' * 400000 + ']\n')" "$p/dense.py"
plant every_node
expect_exit 0 "a check asking for every node of a dense file" -- "$FERRY" -C "$p" check --plugin assess.hostile_every_node --format json
python3 - "$work/out" <<'PY' && ok "the dense file is skipped by that check with a finding; the others are reported" || fail "dense file"
import json, sys
d = json.load(open(sys.argv[1]))
fs = [f for f in d["findings"] if f["plugin"] == "assess.hostile_every_node"]
assert any(f["file"] == "dense.py" and "skipped by this check" in f["message"] and f["severity"] == "warning" for f in fs), fs
assert any(f["file"] == "train.py" and f["message"].endswith("nodes") for f in fs), fs
PY
rm -f "$p/dense.py"


# Malformed but schema-shaped artifacts (a bus_id object, a version list, a non-string
# label, counts of 1e309) are named field by field; no check fails on them. (A metric of
# 1e309 is refused at ingest: test_gates.sh.)
rm -f "$p/.ferry/plugins/"*.lua
art="$hostile/artifacts"
expect_exit 0 "ingest a malformed env-probe" -- "$FERRY" -C "$p" ingest env-probe "$art/probe_malformed.json"
probe_id=$(sed -n 's/.* as artifact \([0-9]*\) .*/\1/p' "$work/out")
expect_exit 0 "ingest a malformed bench" -- "$FERRY" -C "$p" ingest bench "$art/bench_malformed.json" --label npu
bench_id=$(sed -n 's/.* as artifact \([0-9]*\) .*/\1/p' "$work/out")
expect_exit 0 "every phase's checks over the malformed artifacts" -- "$FERRY" -C "$p" check --format json
python3 - "$work/out" "$probe_id" "$bench_id" <<'PY' && ok "each bad field is named with its artifact; no plugin error" || fail "malformed artifacts"
import json, sys
d = json.load(open(sys.argv[1]))
probe, bench = sys.argv[2], sys.argv[3]
assert d["plugin_errors"] == [], d["plugin_errors"]
def finding(plugin, start):
    fs = [f for f in d["findings"] if f["plugin"] == plugin and f["message"].startswith(start)]
    assert fs, (plugin, start, [f["message"] for f in d["findings"] if f["plugin"] == plugin])
    return fs[0]["message"]
m = finding("environment.probe", "The probe (artifact %s) has" % probe)
for want in ("npu.chips[1].bus_id: expected text, found an object or a list",
             "cann.toolkit.version: expected text, found an object or a list",
             "host.hostname: expected text, found a number",
             "host.cpu.count: expected a whole number, found a number that is not finite"):
    assert want in m, (want, m)
m = finding("infer-optimize.bench", "benchmark 'npu' (artifact %s) has" % bench)
for want in ("label: expected text, found an object or a list",
             "sweep[1].batch: expected a finite number, found a number that is not finite"):
    assert want in m, (want, m)
PY

finish

#!/bin/sh
# ferry report on a copy of examples/resnet-ddp: init, check, waive, fix --all --yes, then
# the report in every format. JSON has the sections; CSV parses with Python's csv module;
# SARIF is structurally valid 2.1.0; the change list has MODIFY rows exactly at the lines
# the fixes changed and UNSUPPORTED rows for the custom kernel; a reverted checkpoint
# leaves the change list; every report is an audit event with the hash of its bytes; the
# HTML, opened in headless Chromium, shows the score, the class, a finding's file:line and
# the waiver reason, and renders to a PNG. With `config language zh` (or --lang zh) the
# Markdown and HTML are in Simplified Chinese while JSON and CSV keep English keys and
# values; --lang en overrides the setting; Chromium shows the Chinese HTML.
. "$(dirname "$0")/lib.sh"

p="$work/resnet"
cp -R "$top/examples/resnet-ddp" "$p"
"$FERRY" init "$p" --client "Acme Corp" --engagement ACME-7 >/dev/null 2>&1 || fail "init"
"$FERRY" -C "$p" check --format json >"$work/check.json" 2>/dev/null
reason="NHWC kept on purpose: the client verified channels_last on NPU"
waive=$(python3 -c '
import json, sys
fs = json.load(open(sys.argv[1]))["findings"]
print(next(f["id"] for f in fs if f["plugin"].endswith("channels_last") and f["status"] == "open"))' "$work/check.json")
expect_exit 0 "waive a channels_last finding with a reason" -- "$FERRY" -C "$p" waive "$waive" --reason "$reason"
expect_exit 0 "fix --all --yes" -- "$FERRY" -C "$p" fix --all --yes
expect_exit 0 "ingest an environment probe" -- \
	"$FERRY" -C "$p" ingest env-probe "$top/tests/plugins/environment/healthy_910b/probe.json"
expect_exit 0 "ingest the GPU baseline" -- \
	"$FERRY" -C "$p" ingest bench "$top/tests/plugins/design/full_7b/bench.json" --label gpu

# --- usage errors -------------------------------------------------------------------
expect_exit 2 "report without --format is a usage error" -- "$FERRY" -C "$p" report
expect_exit 2 "report --format pdf without --output is a usage error" -- "$FERRY" -C "$p" report --format pdf
one_line "$work/err" "report --format pdf without --output: one line on stderr"
expect_exit 2 "report --section nonsense is a usage error" -- "$FERRY" -C "$p" report --format md --section nonsense
expect_exit 2 "report --format sarif --section changes is a usage error" -- \
	"$FERRY" -C "$p" report --format sarif --section changes

# --- every format -----------------------------------------------------------------------
for f in md html json sarif csv; do
	expect_exit 0 "report --format $f --output" -- "$FERRY" -C "$p" report --format "$f" --output "$work/report.$f"
done
expect_exit 0 "report --format csv --section changes" -- \
	"$FERRY" -C "$p" report --format csv --section changes --output "$work/changes.csv"
expect_exit 0 "report --format csv --section unsupported" -- \
	"$FERRY" -C "$p" report --format csv --section unsupported --output "$work/unsupported.csv"
expect_exit 0 "report --format md to standard output" -- "$FERRY" -C "$p" report --format md
expect_grep "^# Migration assessment" "$work/out" "markdown on standard output"
expect_grep "## Change list" "$work/report.md" "markdown: change list section"
expect_grep "## Unsupported list" "$work/report.md" "markdown: unsupported list section"
expect_grep "ferry verify" "$work/report.md" "markdown: the command to verify the audit chain"

if python3 - "$work/report.json" <<'PY'; then ok "json: parses and has every section"; else fail "json: parses and has every section"; fi
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
for k in ("engagement", "assessment", "phases", "findings", "waivers", "changes", "unsupported",
          "environment", "artifacts", "history", "audit"):
    assert k in d, k
assert d["engagement"]["client"] == "Acme Corp" and d["engagement"]["engagement_id"] == "ACME-7"
a = d["assessment"]
assert a["ran"] and 0 <= a["score"] <= 100 and a["class"] and a["formula"].startswith("effort = ")
assert a["strategy"]["recommended"] in ("auto", "tool", "manual") and "driver_findings" in a["strategy"]
assert len(d["phases"]) == 7 and all("status" in p for p in d["phases"])
assert d["waivers"] and d["waivers"][0]["reason"]
assert len(d["audit"]["head"]) == 64
env = d["environment"]
assert env["hostname"] == "a2-node-01" and env["cann"] == "8.1.RC1" and env["torch_npu"] == "2.1.0.post12", env
assert [c["name"] for c in env["chips"]] == ["910B2", "910B2"] and env["chips"][0]["memory_mb"] == 65536
assert d["gpu_baseline"]["metrics"] == {"accuracy": 0.761, "throughput": 2450}
assert d["gpu_baseline"]["hardware"] == "8x A100 80GB"
assert {a["kind"] for a in d["artifacts"]} == {"env-probe", "bench"}
PY

if python3 - "$work/report.csv" "$work/changes.csv" "$work/unsupported.csv" <<'PY'; then ok "csv: all three parse with the csv module, one row per record"; else fail "csv: all three parse with the csv module, one row per record"; fi
import csv, json, sys
def rows(path):
    with open(path, newline="", encoding="utf-8") as fh:
        data = fh.read()
    assert data.endswith("\r\n"), path
    r = list(csv.reader(open(path, newline="", encoding="utf-8")))
    assert all(len(x) == len(r[0]) for x in r), path
    return r
f = rows(sys.argv[1])
assert f[0][:4] == ["id", "phase", "category", "severity"] and len(f) > 10
c = rows(sys.argv[2])
assert c[0][:4] == ["file", "start_line", "end_line", "operation"]
assert {x[3] for x in c[1:]} <= {"INSERT", "MODIFY", "DELETE"} and len(c) > 1
u = rows(sys.argv[3])
assert {x[3] for x in u[1:]} == {"UNSUPPORTED"}
PY

schema="$top/build/tools/sarif-2.1.0-rtm.5.json"
if [ -f "$schema" ] && command -v node >/dev/null; then
	node "$top/tests/tools/validate-sarif.js" "$schema" "$work/report.sarif" >"$work/sarif.err" 2>&1 \
		&& ok "sarif: valid against the SARIF 2.1.0 schema" || { fail "sarif: schema validation"; head -5 "$work/sarif.err"; }
else
	fail "SARIF schema validator missing: run make sarif-tools (scripts/setup.sh does)"
fi
if python3 - "$work/report.sarif" <<'PY'; then ok "sarif: structurally valid 2.1.0"; else fail "sarif: structurally valid 2.1.0"; fi
import json, sys
log = json.load(open(sys.argv[1], encoding="utf-8"))
assert log["version"] == "2.1.0" and "sarif-2.1.0" in log["$schema"]
assert isinstance(log["runs"], list) and len(log["runs"]) == 1
run = log["runs"][0]
drv = run["tool"]["driver"]
assert drv["name"] == "ferry" and isinstance(drv["rules"], list)
ids = [r["id"] for r in drv["rules"]]
assert len(ids) == len(set(ids))
assert run["results"]
for res in run["results"]:
    assert res["ruleId"] in ids and ids[res["ruleIndex"]] == res["ruleId"]
    assert res["level"] in ("error", "warning", "note", "none")
    assert isinstance(res["message"]["text"], str) and res["message"]["text"]
    for loc in res.get("locations", []):
        pl = loc["physicalLocation"]
        assert pl["artifactLocation"]["uri"] and not pl["artifactLocation"]["uri"].startswith("/")
        if "region" in pl:
            assert pl["region"]["startLine"] >= 1
    assert res["properties"]["status"] != "fixed"
PY

# --- the change list against the history -----------------------------------------------------
if python3 - "$work/report.json" "$p/.ferry/history.git" <<'PY'; then ok "change list: MODIFY rows exactly at the lines each fix changed"; else fail "change list: MODIFY rows exactly at the lines each fix changed"; fi
import json, subprocess, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
git = ["git", "--git-dir", sys.argv[2]]
fixed = {f["id"]: f for f in d["findings"] if f["status"] == "fixed"}
mods = [r for r in d["changes"] if r["operation"] == "MODIFY"]
assert mods, "no MODIFY rows"
for r in d["changes"]:
    if r["operation"] == "DELETE" or r["start_line"] == 0:
        continue
    text = subprocess.run(git + ["show", "%s:%s" % (r["commit"], r["file"])], capture_output=True,
                          check=True).stdout.decode("utf-8")
    lines = text.splitlines(keepends=True)
    got = "".join(lines[r["start_line"] - 1:r["end_line"]])
    after = r["after"]
    if after.endswith(" more bytes]"):  # long texts are capped in the report
        after = after[:after.rindex("\n[")]
        got = got[:len(after)]
    assert got == after, (r["file"], r["start_line"], got[:200], after[:200])
    if r["operation"] == "MODIFY":
        parent = subprocess.run(git + ["show", "%s~1:%s" % (r["commit"], r["file"])], capture_output=True,
                                check=True).stdout.decode("utf-8")
        assert r["before"] and r["before"] in parent and r["before"] != r["after"], r
# every fixed finding in a file is named by a change row of that file
for fid, f in fixed.items():
    if not f["file"]:
        continue
    assert any(fid in r["findings"] and r["file"] == f["file"] for r in d["changes"]), (fid, f["file"], f["line"])
# the assess fix of `.cuda(non_blocking=True)` in train.py is one of them
assert any(r["file"] == "train.py" and r["operation"] == "MODIFY" and ".cuda(" in r["before"] for r in mods)
PY

if python3 - "$work/report.json" <<'PY'; then ok "unsupported list: the custom kernel and what builds it"; else fail "unsupported list: the custom kernel and what builds it"; fi
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
u = d["unsupported"]
files = {r["file"] for r in u}
assert all(r["operation"] == "UNSUPPORTED" and r["advice"] for r in u)
assert "csrc/fused_bias_act.cu" in files and "setup.py" in files and "models/fused.py" in files, files
assert all(r["severity"] in ("error", "warning") for r in u)
waived = [w["finding_id"] for w in d["waivers"]]
assert not any(set(r["findings"]) & set(waived) for r in u)
PY

# --- the audit record ------------------------------------------------------------------------
if python3 - "$p" "$FERRY" "$work" <<'PY'; then ok "audit: one report event per report, with the hash of the bytes written"; else fail "audit: one report event per report, with the hash of the bytes written"; fi
import hashlib, json, subprocess, sys
p, ferry, work = sys.argv[1:4]
ev = json.loads(subprocess.run([ferry, "-C", p, "log", "--json"], capture_output=True, check=True).stdout)["events"]
reps = [e for e in ev if e["kind"] == "report"]
assert len(reps) == 8, len(reps)
for f in ("md", "html", "json", "sarif", "csv"):
    path = "%s/report.%s" % (work, f)
    sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
    assert any(e["data"]["path"] == path and e["data"]["sha256"] == sha and e["data"]["format"] == f for e in reps), f
assert any(e["data"]["path"] == "-" for e in reps)
PY
expect_exit 0 "verify after the reports" -- "$FERRY" -C "$p" verify

# --- a reverted checkpoint leaves the change list ------------------------------------------------
cp=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["changes"][0]["checkpoint"])' "$work/report.json")
expect_exit 0 "revert checkpoint $cp" -- "$FERRY" -C "$p" revert "$cp"
"$FERRY" -C "$p" report --format json --section changes --output "$work/after.json" 2>/dev/null
if python3 - "$work/after.json" "$cp" <<'PY'; then ok "change list: the reverted checkpoint is not listed, and is named"; else fail "change list: the reverted checkpoint is not listed, and is named"; fi
import json, sys
d = json.load(open(sys.argv[1]))
cp = int(sys.argv[2])
assert "findings" not in d and d["changes"]
assert all(r["checkpoint"] != cp for r in d["changes"])
assert [r["id"] for r in d["reverted_checkpoints"]] == [cp]
PY

# --- the HTML in a real browser ---------------------------------------------------------------------
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
	echo "skipped: chromium not installed (HTML rendering checks)"
else
	prof=$(mktemp -d "$work/chrome-XXXXXX")
	flags="--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync --no-first-run --user-data-dir=$prof"
	# shellcheck disable=SC2086
	timeout 60 "$chrome" $flags --dump-dom "file://$work/report.html" >"$work/dom.html" 2>"$work/chrome.err"
	if python3 - "$work/dom.html" "$work/report.json" "$reason" <<'PY'; then ok "html: Chromium shows the score, the class, a finding's file:line and the waiver reason"; else fail "html: Chromium shows the score, the class, a finding's file:line and the waiver reason"; tail -3 "$work/chrome.err"; fi
import html.parser, json, re, sys
class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts, self.skip = [], 0
    def handle_starttag(self, tag, attrs):
        self.skip += tag in ("style", "script", "title")
    def handle_endtag(self, tag):
        self.skip -= tag in ("style", "script", "title")
    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)
t = Text()
t.feed(open(sys.argv[1], encoding="utf-8").read())
shown = " ".join(" ".join(t.parts).split())
d = json.load(open(sys.argv[2], encoding="utf-8"))
a = d["assessment"]
risk = a["top_risks"][0]
want = ["%d/100" % a["score"], a["class"], "a2-node-01", "8x A100 80GB", "%s:%d" % (risk["file"], risk["line"]), sys.argv[3],
        "Change list", "Unsupported list", "csrc/fused_bias_act.cu", "Audit chain head", "ferry verify"]
missing = [w for w in want if w not in shown]
if not re.search(r"Audit chain head [0-9a-f]{64}", shown):
    missing.append("the audit chain head hash")
for w in missing:
    print("  not shown: %r" % w)
sys.exit(1 if missing or len(shown) < 500 else 0)
PY
	# shellcheck disable=SC2086
	timeout 60 "$chrome" $flags --window-size=1200,1600 --screenshot="$work/report.png" "file://$work/report.html" \
		>/dev/null 2>>"$work/chrome.err"
	if [ -s "$work/report.png" ] && [ "$(head -c 8 "$work/report.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; then
		ok "html: Chromium renders a PNG screenshot"
	else
		fail "html: Chromium renders a PNG screenshot"
		tail -3 "$work/chrome.err"
	fi
fi

# --- Simplified Chinese: the engagement's language, --lang over it ----------------------------------
expect_exit 2 "report --lang fr is a usage error" -- "$FERRY" -C "$p" report --format md --lang fr
one_line "$work/err" "report --lang fr: one line on stderr"
expect_exit 0 "config language zh" -- "$FERRY" -C "$p" config language zh
for f in md html json csv; do
	expect_exit 0 "report --format $f with the engagement's language zh" -- \
		"$FERRY" -C "$p" report --format "$f" --output "$work/zh.$f"
done
expect_exit 0 "report --lang en overrides the engagement's language" -- \
	"$FERRY" -C "$p" report --format md --lang en --output "$work/en.md"
expect_exit 0 "report --lang zh to standard output" -- "$FERRY" -C "$p" report --format md --section changes --lang zh
expect_grep "^## 改动清单" "$work/out" "markdown zh on standard output: the change list"
expect_grep "^# 迁移评估报告：" "$work/zh.md" "markdown zh: the title"
expect_grep "^## 执行摘要" "$work/zh.md" "markdown zh: the executive summary"
expect_grep "就绪度：[0-9]*/100（" "$work/zh.md" "markdown zh: the readiness score"
expect_grep "^## 不支持清单" "$work/zh.md" "markdown zh: the unsupported list"
expect_grep "^## 审计记录" "$work/zh.md" "markdown zh: the audit record"
expect_grep '<html lang="zh-CN">' "$work/zh.html" "html zh: the document's language"
if grep -q -E "Migration assessment|Executive summary|Readiness|Change list|Unsupported list|Audit record|Advice:" \
	"$work/zh.md" "$work/zh.html"; then
	fail "zh reports: English fixed text left"
	grep -n -E "Migration assessment|Executive summary|Readiness|Change list|Unsupported list|Audit record|Advice:" \
		"$work/zh.md" "$work/zh.html" | head -5 | sed 's/^/     | /'
else
	ok "zh reports: no English headings or labels"
fi
expect_grep "^# Migration assessment" "$work/en.md" "--lang en: the English title"
if grep -q "执行摘要" "$work/en.md"; then fail "--lang en: Chinese text in the English report"; else ok "--lang en: no Chinese text"; fi
if python3 - "$work/zh.json" "$work/zh.csv" "$p" "$FERRY" "$work" <<'PY'; then ok "json and csv stay English in zh; the report events name the language"; else fail "json and csv stay English in zh; the report events name the language"; fi
import csv, json, subprocess, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
a = d["assessment"]
assert a["class"] in ("ready", "ready with conditions", "needs manual porting", "blocked"), a["class"]
assert a["formula"].startswith("effort = ") and d["title"].startswith("Migration assessment")
assert {r["operation"] for r in d["changes"]} <= {"INSERT", "MODIFY", "DELETE"}
assert {r["operation"] for r in d["unsupported"]} == {"UNSUPPORTED"}
assert {f["status"] for f in d["findings"]} <= {"open", "fixed", "waived"}
r = list(csv.reader(open(sys.argv[2], newline="", encoding="utf-8")))
assert r[0][:4] == ["id", "phase", "category", "severity"]
ev = json.loads(subprocess.run([sys.argv[4], "-C", sys.argv[3], "log", "--json"], capture_output=True, check=True).stdout)["events"]
langs = {e["data"]["path"]: e["data"].get("lang") for e in ev if e["kind"] == "report"}
assert langs["%s/zh.md" % sys.argv[5]] == "zh" and langs["%s/en.md" % sys.argv[5]] == "en", langs
PY

if [ -n "$chrome" ]; then
	# shellcheck disable=SC2086
	timeout 60 "$chrome" $flags --dump-dom "file://$work/zh.html" >"$work/zh-dom.html" 2>"$work/chrome.err"
	if python3 - "$work/zh-dom.html" "$work/zh.json" <<'PY'; then ok "html zh: Chromium shows the Chinese score label, the score, the class and headings"; else fail "html zh: Chromium shows the Chinese score label, the score, the class and headings"; tail -3 "$work/chrome.err"; fi
import html.parser, json, sys
class Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts, self.skip, self.lang = [], 0, None
    def handle_starttag(self, tag, attrs):
        self.skip += tag in ("style", "script", "title")
        if tag == "html":
            self.lang = dict(attrs).get("lang")
    def handle_endtag(self, tag):
        self.skip -= tag in ("style", "script", "title")
    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)
t = Text()
t.feed(open(sys.argv[1], encoding="utf-8").read())
shown = " ".join(" ".join(t.parts).split())
a = json.load(open(sys.argv[2], encoding="utf-8"))["assessment"]
klass = {"ready": "就绪", "ready with conditions": "有条件就绪", "needs manual porting": "需要人工移植", "blocked": "受阻"}[a["class"]]
want = ["就绪度 %d/100 %s" % (a["score"], klass), "工作量", "人天", "执行摘要", "改动清单", "不支持清单", "审计链头", "ferry verify"]
missing = [w for w in want if w not in shown]
missing += [w for w in ("Readiness", "Executive summary", "Audit chain head") if w in shown]
if t.lang != "zh-CN":
    missing.append("lang=%r" % t.lang)
for w in missing:
    print("  wrong: %r" % w)
sys.exit(1 if missing else 0)
PY
fi

finish

#!/bin/sh
# SARIF that GitHub code scanning accepts: every result has a physical location with a
# relative URI under %SRCROOT% (declared in originalUriBaseIds) and a region; a finding
# about the project as a whole points at the entry script, line 1, never at a file that
# does not exist; columns count characters, not bytes; rules carry a short description,
# the advice as help, and a help page where a public one exists. Both `check --format
# sarif` and `report --format sarif` are checked, and validated against the schema.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
mkdir -p "$p"
cat >"$p/train.py" <<'PY'
import torch

def main():
    name = "张三"; x = torch.zeros(2).cuda()
    return x

if __name__ == "__main__":
    main()
PY
"$FERRY" init "$p" >/dev/null 2>&1 || fail "init"
expect_exit 0 "check --format sarif" -- "$FERRY" -C "$p" check --format sarif --output "$work/check.sarif"
expect_exit 0 "report --format sarif" -- "$FERRY" -C "$p" report --format sarif --output "$work/report.sarif"

for f in check report; do
if python3 - "$work/$f.sarif" "$p" <<'PY'; then ok "$f: every result located in an existing file, columns in characters"; else fail "$f: every result located in an existing file, columns in characters"; fi
import json, os, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
root = sys.argv[2]
run = d["runs"][0]
assert "%SRCROOT%" in run["originalUriBaseIds"], run.get("originalUriBaseIds")
res = run["results"]
assert len(res) > 5
project_level = 0
for r in res:
    loc = r["locations"][0]["physicalLocation"]
    art = loc["artifactLocation"]
    assert art["uriBaseId"] == "%SRCROOT%", art
    uri = art["uri"]
    assert uri and not uri.startswith("/") and "://" not in uri, uri
    assert os.path.isfile(os.path.join(root, uri)), (r["ruleId"], uri)
    assert loc["region"]["startLine"] >= 1, (r["ruleId"], loc)
    if r["ruleId"] in ("assess.gpu_baseline", "design.gpu_baseline", "environment.probe"):
        project_level += 1
        assert uri == "train.py" and loc["region"]["startLine"] == 1, (r["ruleId"], loc)
assert project_level >= 2, project_level
line = open(os.path.join(root, "train.py"), encoding="utf-8").read().split("\n")[3]
want = line.index("torch.zeros(2).cuda()") + 1
dc = [r for r in res if r["ruleId"].endswith("device_calls")]
assert dc
for r in dc:
    reg = r["locations"][0]["physicalLocation"]["region"]
    assert reg["startColumn"] == want, (reg, want)
    assert reg["endColumn"] == want + len("torch.zeros(2).cuda()"), (reg, want)
rules = run["tool"]["driver"]["rules"]
for rule in rules:
    assert rule["shortDescription"]["text"] and rule["help"]["text"], rule["id"]
assert any(rule.get("helpUri", "").startswith("https://") for rule in rules)
for rule in rules:
    if "helpUri" in rule:
        assert rule["helpUri"].startswith("https://"), rule
PY
done

schema="$top/build/tools/sarif-2.1.0-rtm.5.json"
if [ -f "$schema" ] && command -v node >/dev/null; then
	for f in check report; do
		node "$top/tests/tools/validate-sarif.js" "$schema" "$work/$f.sarif" >"$work/err" 2>&1 \
			&& ok "$f: valid against the SARIF 2.1.0 schema" || { fail "$f: SARIF schema validation"; head -5 "$work/err"; }
	done
else
	fail "SARIF schema validator missing: run make sarif-tools (scripts/setup.sh does)"
fi

finish

#!/bin/sh
# One output convention: every command that prints data takes --format json (and the old
# spelling --json), and what it prints then is one JSON document a script can read.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
fx=$top/tests/fixtures

p="$work/p"
make_project "$p"
# the client's repository holds the project as received
git init -q "$work/client" && cp -R "$p/." "$work/client/"
(cd "$work/client" && git add -A && git -c user.name=c -c user.email=c@example.org commit -qm base) >/dev/null 2>&1
"$FERRY" init "$p" >/dev/null 2>&1
"$FERRY" -C "$p" check >/dev/null 2>&1
n=0
doc() { # DESC PYTHON-CHECK -- CMD...: the command's stdout is JSON and passes the check
	desc=$1 check=$2
	shift 3
	n=$((n + 1))
	"$@" >"$work/$n.json" 2>"$work/$n.err"
	if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert $check, repr(d)[:300]" "$work/$n.json" 2>"$work/$n.py"; then
		ok "$desc"
	else
		fail "$desc"
		sed 's/^/     | /' "$work/$n.err" "$work/$n.py" | tail -4
	fi
}
for spelling in "--format json" "--json"; do
	doc "status $spelling" 'd["engagement"]["engagement_id"]' -- "$FERRY" -C "$p" status $spelling
	doc "plugins $spelling" 'len(d["plugins"]) > 10' -- "$FERRY" -C "$p" plugins $spelling
	doc "log $spelling" 'd["checkpoints"][-1]["kind"] == "baseline"' -- "$FERRY" -C "$p" log $spelling
	doc "config $spelling" 'any(r["key"] == "strategy" for r in d)' -- "$FERRY" -C "$p" config $spelling
done
doc "check --format json" '"findings" in d' -- "$FERRY" -C "$p" check --phase assess --format json
doc "findings --format json" 'd["findings"][0]["id"] >= 1' -- "$FERRY" -C "$p" findings --format json
doc "verify --format json" 'd["ok"] is True' -- "$FERRY" -C "$p" verify --format json
doc "config KEY VALUE --format json: the new and the previous value" \
	'd["key"] == "strategy" and d["value"] == "tool" and d["previous"] is None' -- "$FERRY" -C "$p" config strategy tool --format json
doc "config KEY --json" 'd["value"] == "tool" and d["allowed"] == ["auto", "tool", "manual"]' -- "$FERRY" -C "$p" config strategy --json
doc "ingest --format json: the recorded artifact" \
	'd["kind"] == "loss-log" and d["label"] == "gpu" and len(d["sha256"]) == 64' -- \
	"$FERRY" -C "$p" ingest loss-log "$fx/loss/gpu_plain.log" --label gpu --format json
doc "ingest --json" 'd["label"] == "npu"' -- "$FERRY" -C "$p" ingest loss-log "$fx/loss/npu_blowup_plain.log" --label npu --json
"$FERRY" -C "$p" compare loss gpu npu --format json >"$work/cmp.json" 2>/dev/null
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/cmp.json" && ok "compare --format json (a failing verdict is still a document)" || fail "compare json"
doc "fix --dry-run --format json: the plan and its diff, nothing changed" \
	'd["dry_run"] and d["findings"] >= 1 and "+++ b/train.py" in d["diff"] and d["refused"] == []' -- \
	"$FERRY" -C "$p" fix --all --dry-run --format json
before=$(tree_hash "$p")
[ "$before" = "$(tree_hash "$p")" ] && ok "the dry run changed nothing" || fail "the dry run changed files"
expect_exit 2 "fix --format json without --yes or --dry-run is refused (a document cannot ask)" -- "$FERRY" -C "$p" fix --all --format json
one_line "$work/err" "with one line"
doc "fix --yes --json: the checkpoints it made" \
	'not d["dry_run"] and len(d["checkpoints"]) >= 1 and all(c["kind"] == "fix" for c in d["checkpoints"])' -- \
	"$FERRY" -C "$p" fix --all --yes --json
doc "export patches --format json: the anchor and the patch files" \
	'd["what"] == "patches" and ":" in d["anchor"] and d["patches"][0].startswith("0001-")' -- \
	"$FERRY" -C "$p" export patches "$work/patches" --format json
doc "export branch --json" 'd["what"] == "branch" and d["branch"] == "npu-port" and d["base"] is None' -- \
	"$FERRY" -C "$p" export branch npu-port --to "$work/client" --json
finish

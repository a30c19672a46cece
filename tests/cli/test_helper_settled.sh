#!/bin/sh
# A call of the project's own CUDA helper (assess.cuda_helpers) needs no change of its own:
# migrating the helper migrates it. The call follows the helper's CUDA sites, so it is
# what they are: automatic where adapt rewrites every one of them (never in the report's
# list of constructs a person must port, no manual effort), settled once adapt has fixed
# them all — through a chain of helpers too — and neither while one of them needs a person
# (`torch.cuda.get_device_capability`). A revert of the fix unsettles it again.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
cp -r "$top/tests/fixtures/projects/helpers" "$p"
"$FERRY" -C "$p" init >/dev/null 2>&1 || fail "init"
"$FERRY" -C "$p" check --phase assess >/dev/null 2>&1

# caller TEXT FIELD: FIELD of the assess.cuda_helpers finding whose message starts with
# `TEXT (settled: "phase status" or "none"; automatic: 1 or 0)
caller() {
	"$FERRY" -C "$p" findings --phase assess --plugin assess.cuda_helpers --format json | python3 -c '
import json, sys
text, field = sys.argv[1:]
for f in json.load(sys.stdin)["findings"]:
    if f["message"].startswith("`" + text):
        s = f.get("settled_by")
        if field == "settled":
            print("none" if not s else "%s %s" % (s["phase"], s["status"]))
        elif field == "automatic":
            print(int(bool(f["automatic"])))
        else:
            print(f[field])
        break
else:
    print("missing")' "$@"
}

for call in "select_device()" "to_device(torch" "prepare(torch"; do
	[ "$(caller "$call" automatic)" = 1 ] && ok "$call: adapt rewrites the helper's CUDA, so the call is automatic" \
		|| fail "$call: adapt rewrites the helper's CUDA, so the call is automatic"
done
[ "$(caller "tensor_cores()" automatic)" = 0 ] \
	&& ok "a helper that needs a person (get_device_capability) leaves its call manual" \
	|| fail "a helper that needs a person (get_device_capability) leaves its call manual"
case "$(caller "prepare(torch" suggestion)" in
*"Migrate \`to_device\` in pkg/utils.py (the finding at line 12), which \`prepare\` calls"*)
	ok "a call through a chain of helpers names the helper at its end" ;;
*) fail "a call through a chain of helpers names the helper at its end: $(caller "prepare(torch" suggestion)" ;;
esac
[ "$(caller "select_device\` depends" automatic)" = 1 ] \
	&& ok "the helper's own note follows its CUDA sites too" || fail "the helper's own note follows its CUDA sites too"

"$FERRY" -C "$p" report --format md --output "$work/before.md" >/dev/null 2>&1
sed -n '/constructs a person must port/,/^## /p' "$work/before.md" >"$work/manual"
if grep -q "select_device()\|to_device(torch\|prepare(torch" "$work/manual"; then
	fail "calls of helpers adapt migrates are not constructs a person must port"
	sed 's/^/     | /' "$work/manual" | head -8
else ok "calls of helpers adapt migrates are not constructs a person must port"; fi
expect_grep "tensor_cores()" "$work/manual" "the call of the helper a person ports is listed"

"$FERRY" -C "$p" check --phase adapt >/dev/null 2>&1
expect_exit 0 "adapt's fixes apply" -- "$FERRY" -C "$p" fix --all --phase adapt --yes
for call in "select_device()" "to_device(torch" "prepare(torch" "select_device\` depends"; do
	[ "$(caller "$call" settled)" = "adapt fixed" ] && ok "$call: settled by adapt's fix of the helper" \
		|| fail "$call: settled by adapt's fix of the helper: $(caller "$call" settled)"
done
[ "$(caller "tensor_cores()" settled)" = none ] \
	&& ok "the call of the helper adapt left for a person is not settled" \
	|| fail "the call of the helper adapt left for a person is not settled"
"$FERRY" -C "$p" report --format md --output "$work/after.md" >/dev/null 2>&1
call_id=$(caller "select_device()" id)
grep -F "(#$call_id, assess.cuda_helpers)" "$work/after.md" >"$work/line"
expect_grep '\*\*settled\*\*' "$work/line" "the report marks the helper's call settled"

# undo every adapt checkpoint: the helper depends on CUDA again, and so do its calls
head_id=$("$FERRY" -C "$p" log --format json | python3 -c 'import json, sys; print(max(c["id"] for c in json.load(sys.stdin)["checkpoints"]))')
c=$head_id
while [ "$c" -gt 1 ]; do
	"$FERRY" -C "$p" revert "$c" >/dev/null 2>"$work/err" || { fail "checkpoint $c is reverted: $(cat "$work/err")"; break; }
	c=$((c - 1))
done
[ "$(caller "select_device()" settled)" = none ] \
	&& ok "after the revert the helper's call is no longer settled" \
	|| fail "after the revert the helper's call is no longer settled: $(caller "select_device()" settled)"

finish

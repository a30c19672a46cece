#!/bin/sh
# A project's size must not decide whether a check finishes: the checks' instruction
# budget grows with the source they are offered, so a check whose work per file is
# bounded finishes on any number of files. A check that redid project-wide work for every
# file (as the Megatron detection did for the backend and environment rewrites) ran out of
# its budget on a large project, exited 3 and lost its findings.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
make_project "$p"
# 400 files of about 10 KB, each with a backend and a device to rewrite
pad=$(awk 'BEGIN { for (i = 0; i < 150; i++) printf "value_%d = [i * 2 for i in range(%d)]  # padding\n", i, i }')
i=0
while [ "$i" -lt 400 ]; do
	{
		printf 'import torch\nimport torch.distributed as dist\n\n'
		printf 'def setup_%d(rank):\n    dist.init_process_group("nccl", rank=rank)\n    return torch.zeros(%d).cuda()\n\n' "$i" "$i"
		printf '%s\n' "$pad"
	} >"$p/m$i.py"
	i=$((i + 1))
done

expect_exit 0 "init of 400 files" -- "$FERRY" init "$p"
"$FERRY" -C "$p" check --phase adapt --format json >"$work/out" 2>"$work/err"
rc=$?
if [ "$rc" -le 1 ] && ! grep -q "budget" "$work/err"; then
	ok "adapt on 400 files finishes within the checks' budgets"
else
	fail "adapt on 400 files: exit $rc"
	sed 's/^/     | /' "$work/err" | head -3
fi
n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len({f["file"] for f in d["findings"] if f["plugin"] == "adapt.torch_npu_import" and f["file"].startswith("m")}))' "$work/out" 2>/dev/null || echo 0)
if [ "$n" = 400 ]; then ok "every file is told to import torch_npu"; else fail "torch_npu_import reported $n of 400 files"; fi
n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len({f["file"] for f in d["findings"] if f["plugin"] == "adapt.distributed_backend" and f["file"].startswith("m")}))' "$work/out" 2>/dev/null || echo 0)
if [ "$n" = 400 ]; then ok "every file's nccl backend is found"; else fail "distributed_backend reported $n of 400 files"; fi

# FERRY_PROFILE: where a check's time went, by line of Lua, without changing its findings
"$FERRY" -C "$p" check --plugin adapt.torch_npu_import --format json >"$work/plain" 2>/dev/null
FERRY_PROFILE=1 "$FERRY" -C "$p" check --plugin adapt.torch_npu_import --format json >"$work/prof" 2>"$work/err"
expect_grep "profile of adapt.torch_npu_import" "$work/err" "FERRY_PROFILE names the check"
expect_grep "^ *[0-9.]*%  *[0-9.]* s  .*/cuda.lua:[0-9]*$" "$work/err" "FERRY_PROFILE lists lines of the Lua library with their share"
if [ "$(grep -v '"run":' "$work/plain")" = "$(grep -v '"run":' "$work/prof")" ]; then ok "profiling leaves the findings as they were"; else fail "profiling changed the findings"; fi
"$FERRY" -C "$p" check --plugin adapt.torch_npu_import >/dev/null 2>"$work/err"
if grep -q "profile of" "$work/err"; then fail "a profile without FERRY_PROFILE"; else ok "no profile unless asked"; fi

# Model code as it is written (a call or two on most lines, chains like x.to(d).float()):
# every query the assessment asks of a file is remembered, so that one walk of its tree
# answers them all. With too small a budget a third of the matches were dropped and the
# tree walked again for each check that asked. Sixteen files of 18 KB: enough code for the
# queries that recur to be walked together in unions (a small project walks them alone).
d="$work/model"
make_project "$d"
i=0
while [ "$i" -lt 16 ]; do
	awk -v k="$i" 'BEGIN {
		print "import torch\nimport torch.nn.functional as F\n\n\nclass Block(torch.nn.Module):"
		for (j = 0; j < 60; j++) {
			printf "    def step_%d(self, x, mask, device):\n", j
			printf "        \"\"\"One step of the block (%d).\"\"\"\n", j
			printf "        h = self.norm(x.to(device, dtype=torch.float16))\n"
			printf "        h = F.gelu(self.proj(h)).float()\n"
			printf "        if mask is not None:\n            h = h[mask].sum(dim=-1, keepdim=True)\n"
			printf "        scale = self.scale * %d  # keep the scale\n", j
			printf "        return h * scale + x.cuda()\n\n"
		}
	}' >"$d/block$i.py"
	i=$((i + 1))
done
expect_exit 0 "init of model files" -- "$FERRY" init "$d"
FERRY_DEBUG=1 "$FERRY" -C "$d" check --phase assess --format json >"$work/out" 2>"$work/err"
expect_grep "query walks .* 0 too large to remember" "$work/err" "model code: every query's matches are remembered (one walk answers them all)"
expect_grep "query walks  *[1-9][0-9]* together" "$work/err" "model code: recurring queries are walked together"
# The files are the same, and the first ones are queried before any query recurs: a walk
# of a union must find what each query finds alone, so every file gets the same findings.
n=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
per = {}
for f in d["findings"]:
    if f["file"].startswith("block"):
        per.setdefault(f["file"], []).append((f["plugin"], f["line"], f.get("column"), f["message"]))
sets = {tuple(sorted(v)) for v in per.values()}
print(len(per) if len(sets) == 1 and per else 0)' "$work/out" 2>/dev/null || echo 0)
if [ "$n" = 16 ]; then ok "model code: the same file gets the same findings, walked alone or together"; else fail "model code: the 16 identical files got different findings ($n)"; fi

# A check that reports a finding on every line of a file it never parsed reads the file
# once: each report read the whole file again and kept the copy until Lua's garbage
# collector ran, which did not see that memory (2,000 findings in Megatron-LM held 220 MB).
r="$work/reads"
make_project "$r"
awk 'BEGIN { for (i = 1; i <= 2000; i++) printf "x_%d = torch.zeros(%d).cuda()  # %0100d\n", i, i, i }' >"$r/big.py"
printf 'import torch\n' >"$r/small.py"
expect_exit 0 "init of a file of 2,000 lines" -- "$FERRY" init "$r"
mkdir -p "$r/.ferry/plugins/assess"
cat >"$r/.ferry/plugins/assess/every_line.lua" <<'LUA'
return {
	id = "assess.every_line", phase = "assess", title = "a finding on every line",
	severity = "info", category = "device",
	run = function(ctx)
		for i = 1, 2000 do
			ctx.report{ file = "big.py", line = i, message = "line " .. i }
			if i == 1000 then ctx.report{ file = "small.py", line = 1, message = "elsewhere" } end
		end
	end,
}
LUA
FERRY_DEBUG=1 "$FERRY" -C "$r" check --plugin assess.every_line --format json >"$work/out" 2>"$work/err"
expect_grep "files read without a tree  *3 " "$work/err" "2,001 findings in two files read them three times (big.py, small.py, big.py again)"
n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=[x for x in d["findings"] if x["file"]=="big.py"]; print(sum(1 for x in f if x["message"]=="line %d" % x["line"]))' "$work/out" 2>/dev/null || echo 0)
if [ "$n" = 2000 ]; then ok "each finding is on its own line"; else fail "$n of 2000 findings on their line"; fi

finish

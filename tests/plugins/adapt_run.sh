#!/bin/sh
# Adapt-phase tests: the fixes of plugins/adapt/ applied by `ferry fix`.
#
# 1. Goldens: each tests/plugins/adapt/<name>/ holds project/ (the code as received),
#    expected/ (every file, byte for byte, after `ferry fix --all --phase adapt --yes`),
#    expected_open.json (the adapt findings left open for a human: plugin, file, line,
#    severity) and optionally config (lines "KEY VALUE" for `ferry config`).
# 2. Round trip: fix everything, revert every fix checkpoint newest first, and get the
#    original bytes back.
# 3. examples/resnet-ddp: after the fixes no CUDA call is left that has an automatic fix,
#    every .py compiles, comments and strings are unchanged except the device/backend
#    strings rewritten on purpose, one checkpoint per plugin with its findings, and
#    `ferry diff baseline` shows the changes.
# 4. --dry-run writes nothing and prints the diff; a fix that breaks the parse is refused.
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
ferry=${FERRY:-$root/ferry}
export FERRY_ACTOR="adapt-tests <tests@example.invalid>"
unset FERRY_PLUGIN_PATH
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-adapt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$root/tests/plugins/lib.sh"

# same_tree A B: every file under A and B (except .ferry/) is byte-identical.
same_tree() {
	python3 - "$1" "$2" <<'PY'
import os, sys
def files(top):
    out = {}
    for d, dirs, names in os.walk(top):
        dirs[:] = [x for x in dirs if x != ".ferry"]
        for n in names:
            p = os.path.join(d, n)
            out[os.path.relpath(p, top)] = open(p, "rb").read()
    return out
a, b = files(sys.argv[1]), files(sys.argv[2])
ok = True
for k in sorted(set(a) | set(b)):
    if k not in a or k not in b:
        print("  %s exists on one side only" % k)
        ok = False
    elif a[k] != b[k]:
        la, lb = a[k].splitlines(True), b[k].splitlines(True)
        for i, (x, y) in enumerate(zip(la, lb)):
            if x != y:
                print("  %s:%d: %r != %r" % (k, i + 1, x, y))
                break
        else:
            print("  %s: lengths differ (%d, %d bytes)" % (k, len(a[k]), len(b[k])))
        ok = False
sys.exit(0 if ok else 1)
PY
}

# init_copy SRC DIR [CONFIG]: copy SRC to DIR, `ferry init` it, apply CONFIG.
init_copy() {
	cp -R "$1" "$2" &&
		"$ferry" init "$2" --client test >"$tmp/init.log" 2>&1 || { cat "$tmp/init.log"; return 1; }
	if [ $# -ge 3 ] && [ -f "$3" ]; then
		while read -r key value; do
			[ -n "$key" ] || continue
			"$ferry" -C "$2" config "$key" "$value" >/dev/null || return 1
		done <"$3"
	fi
}

# adapt_fix DIR: check the adapt phase and apply every fix.
adapt_fix() {
	"$ferry" -C "$1" check --phase adapt >"$tmp/check.log" 2>&1 &&
		"$ferry" -C "$1" fix --all --phase adapt --yes >"$tmp/fix.log" 2>&1 ||
		{ cat "$tmp/check.log" "$tmp/fix.log"; return 1; }
}

# open_findings DIR OUT: re-check the adapt phase, write its open findings as JSON.
open_findings() {
	"$ferry" -C "$1" check --phase adapt >/dev/null 2>&1 &&
		"$ferry" -C "$1" findings --phase adapt --status open --format json >"$2"
}

# 1. Goldens.
for fixture in tests/plugins/adapt/*/; do
	name=$(basename "$fixture")
	[ -d "$fixture/project" ] && [ -d "$fixture/expected" ] || continue
	work="$tmp/golden-$name"
	if init_copy "$fixture/project" "$work" "$fixture/config" && adapt_fix "$work" &&
		same_tree "$work" "$fixture/expected"; then
		ok "golden $name: files after the fixes match expected/ byte for byte"
	else
		bad "golden $name: files after the fixes match expected/ byte for byte"
		continue
	fi
	if open_findings "$work" "$tmp/open-$name.json" &&
		python3 - "$fixture/expected_open.json" "$tmp/open-$name.json" <<'PY'
import collections, json, sys
want = collections.Counter((f["plugin"], f["file"], f["line"], f["severity"]) for f in json.load(open(sys.argv[1])))
data = json.load(open(sys.argv[2]))
rows = data["findings"] if isinstance(data, dict) else data
got = collections.Counter((f["plugin"], f["file"], f["line"], f["severity"]) for f in rows)
ok = True
for k in sorted(want - got):
    print("  missing  %s %s:%d %s" % k); ok = False
for k in sorted(got - want):
    print("  extra    %s %s:%d %s" % k); ok = False
for f in rows:
    if f.get("fixable"):
        print("  still fixable: %s %s:%d" % (f["plugin"], f["file"], f["line"])); ok = False
sys.exit(0 if ok else 1)
PY
	then
		ok "golden $name: only the expected no-edit findings stay open"
	else
		bad "golden $name: only the expected no-edit findings stay open"
	fi
done

# 2. Round trip: every fix, then every fix checkpoint reverted newest first.
work="$tmp/roundtrip"
if init_copy tests/plugins/adapt/hard/project "$work" &&
	"$ferry" -C "$work" check >/dev/null 2>&1 &&
	"$ferry" -C "$work" fix --all --yes >"$tmp/rt-fix.log" 2>&1 &&
	"$ferry" -C "$work" log --json >"$tmp/rt-log.json" &&
	python3 - "$tmp/rt-log.json" >"$tmp/rt-ids" <<'PY'
import json, sys
cps = json.load(open(sys.argv[1]))["checkpoints"]
fixes = sorted((c["id"] for c in cps if c["kind"] == "fix"), reverse=True)
if len(fixes) < 2:
    sys.exit("expected several fix checkpoints, got %d" % len(fixes))
print("\n".join(str(i) for i in fixes))
PY
then
	rt=0
	while read -r id; do
		"$ferry" -C "$work" revert "$id" >"$tmp/rt-revert.log" 2>&1 || { cat "$tmp/rt-revert.log"; rt=1; }
	done <"$tmp/rt-ids"
	if [ $rt -eq 0 ] && same_tree "$work" tests/plugins/adapt/hard/project; then
		ok "round trip: reverting every fix checkpoint restores the original bytes"
	else
		bad "round trip: reverting every fix checkpoint restores the original bytes"
	fi
else
	cat "$tmp/rt-fix.log" 2>/dev/null
	bad "round trip: reverting every fix checkpoint restores the original bytes"
fi

# 3. examples/resnet-ddp.
work="$tmp/resnet"
if init_copy examples/resnet-ddp "$work" && adapt_fix "$work"; then
	ok "resnet-ddp: check and fix --all --phase adapt"
else
	bad "resnet-ddp: check and fix --all --phase adapt"
fi
if open_findings "$work" "$tmp/resnet-open.json" &&
	python3 - "$tmp/resnet-open.json" "$work" <<'PY'
import ast, json, re, sys, os
data = json.load(open(sys.argv[1]))
rows = data["findings"] if isinstance(data, dict) else data
ok = True
for f in rows:
    if f.get("fixable"):
        print("  still fixable: %s %s:%d %s" % (f["plugin"], f["file"], f["line"], f["message"])); ok = False

def beside_npu(tree):
    """Lines of the clauses an if/elif/else chain keeps beside its NPU clause."""
    lines, inner = set(), set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.If) or id(node) in inner:
            continue
        clauses, cur = [], node
        while True:
            clauses.append((cur.test, cur.body))
            if len(cur.orelse) == 1 and isinstance(cur.orelse[0], ast.If):
                cur = cur.orelse[0]
                inner.add(id(cur))
            else:
                if cur.orelse:
                    clauses.append((None, cur.orelse))
                break
        if any(test is not None and "npu" in ast.unparse(test) for test, _body in clauses):
            for test, body in clauses:
                if test is None or "npu" not in ast.unparse(test):
                    first = test.lineno if test is not None else body[0].lineno
                    lines.update(range(first, body[-1].end_lineno + 1))
    return lines
# no CUDA call with a mechanical rewrite is left in code, but the CUDA branch kept
# beside an NPU one
for d, dirs, names in os.walk(sys.argv[2]):
    dirs[:] = [x for x in dirs if x != ".ferry"]
    for n in names:
        if n.endswith(".py"):
            p = os.path.join(d, n)
            kept = beside_npu(ast.parse(open(p, encoding="utf-8").read()))
            for i, line in enumerate(open(p, encoding="utf-8"), 1):
                code = line.split("#")[0]
                if i in kept:
                    continue
                if re.search(r"\.cuda\(|torch\.cuda\.(synchronize|set_device|is_available|amp)", code) and '"""' not in code:
                    print("  %s:%d still calls CUDA: %s" % (os.path.relpath(p, sys.argv[2]), i, line.strip())); ok = False
sys.exit(0 if ok else 1)
PY
then
	ok "resnet-ddp: only no-edit (human) findings remain and no CUDA call is left"
else
	bad "resnet-ddp: only no-edit (human) findings remain and no CUDA call is left"
fi
if (cd "$work" && find . -name '*.py' -not -path './.ferry/*' | while read -r f; do
	python3 -m py_compile "$f" || echo FAIL
done) | grep -q FAIL; then
	bad "resnet-ddp: every .py compiles after the fixes"
else
	ok "resnet-ddp: every .py compiles after the fixes"
fi
if python3 - examples/resnet-ddp "$work" <<'PY'
import io, os, re, sys, tokenize
def in_probe(ts, i):
    # the "npu" or "is_npu" a library's fallback passes to getattr/hasattr
    depth = 0
    for j in range(i - 1, -1, -1):
        s = ts[j].string
        if s in ")]}":
            depth += 1
        elif s in "([{":
            if depth == 0:
                return j > 0 and ts[j - 1].string in ("getattr", "hasattr")
            depth -= 1
    return False
def toks(path, after=False):
    with open(path, "rb") as fh:
        kinds = (tokenize.COMMENT, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1))
        ts = list(tokenize.tokenize(fh.readline))
        return [(t.type, t.string) for i, t in enumerate(ts) if t.type in kinds
                and not (after and t.string in ('"npu"', '"is_npu"') and in_probe(ts, i))]
# strings rewritten on purpose: device strings and backend names
DEVICE = re.compile(r"""^[rRbBuUfF]*(['"])(cuda(:[^'"]*)?|nccl|cpu:gloo,cuda:nccl|CUDA_VISIBLE_DEVICES)\1$""")
ok = True
for d, dirs, names in os.walk(sys.argv[1]):
    for n in names:
        if not n.endswith(".py"):
            continue
        a = os.path.join(d, n)
        b = os.path.join(sys.argv[2], os.path.relpath(a, sys.argv[1]))
        ta, tb = toks(a, True), toks(b, True)
        if len(ta) != len(tb):
            print("  %s: %d comment/string tokens before, %d after" % (b, len(ta), len(tb))); ok = False
            continue
        for (ka, sa), (kb, sb) in zip(ta, tb):
            if sa == sb:
                continue
            expected = sa.replace("cuda", "npu").replace("nccl", "hccl").replace("CUDA_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES")
            literal = DEVICE.match(sa) or (ka != tokenize.STRING and sa in ("cuda", "cuda:"))
            if ka == tokenize.COMMENT or not literal or sb != expected:
                print("  %s: %r became %r" % (b, sa, sb)); ok = False
sys.exit(0 if ok else 1)
PY
then
	ok "resnet-ddp: comments and strings unchanged except device/backend strings"
else
	bad "resnet-ddp: comments and strings unchanged except device/backend strings"
fi
if "$ferry" -C "$work" log --json >"$tmp/resnet-log.json" &&
	"$ferry" -C "$work" diff baseline >"$tmp/resnet.diff" &&
	python3 - "$tmp/resnet-log.json" "$tmp/resnet.diff" <<'PY'
import json, sys
cps = [c for c in json.load(open(sys.argv[1]))["checkpoints"] if c["kind"] == "fix"]
diff = open(sys.argv[2]).read()
ok = True
plugins = [c["plugin"] for c in cps]
for p in ("adapt.device_calls", "adapt.cuda_apis", "adapt.amp", "adapt.distributed_backend",
          "adapt.env_vars", "adapt.device_type_branches", "adapt.torch_npu_import"):
    if plugins.count(p) != 1:
        print("  %s has %d fix checkpoints, expected 1" % (p, plugins.count(p))); ok = False
for c in cps:
    if c.get("phase") != "adapt" or not c.get("findings"):
        print("  checkpoint %s (%s) lacks its phase or findings" % (c["id"], c["plugin"])); ok = False
for needle in ("+import torch_npu", "torch.npu.set_device", "x.npu(non_blocking=True)", 'torch.device("npu", local_rank)',
               "torch.npu.amp.GradScaler", 'default="hccl"', "--backend hccl", "ASCEND_RT_VISIBLE_DEVICES", 'getattr(x, "is_npu", False)'):
    if needle not in diff:
        print("  ferry diff baseline does not show %r" % needle); ok = False
sys.exit(0 if ok else 1)
PY
then
	ok "resnet-ddp: one checkpoint per plugin with its findings, shown by diff baseline"
else
	bad "resnet-ddp: one checkpoint per plugin with its findings, shown by diff baseline"
fi

# Under strategy auto the example (its setup.py and launch script read for the entry
# scripts) checks without a plugin error, and its training script gets transfer_to_npu.
work="$tmp/resnet-auto"
printf 'strategy auto\n' >"$tmp/auto.config"
if init_copy examples/resnet-ddp "$work" "$tmp/auto.config" && adapt_fix "$work" &&
	grep -q "^from torch_npu.contrib import transfer_to_npu" "$work/train.py"; then
	ok "resnet-ddp under strategy auto: checked and fixed, train.py gets transfer_to_npu"
else
	bad "resnet-ddp under strategy auto: checked and fixed, train.py gets transfer_to_npu"
fi

# 4a. --dry-run changes nothing and prints the diff.
work="$tmp/dry"
if init_copy tests/plugins/adapt/hard/project "$work" &&
	"$ferry" -C "$work" check --phase adapt >/dev/null 2>&1 &&
	"$ferry" -C "$work" fix --all --phase adapt --dry-run >"$tmp/dry.out" 2>&1 &&
	grep -q '^+.*x\.npu(device=rank)' "$tmp/dry.out" && grep -q '^--- a/tabs_model.py' "$tmp/dry.out" &&
	same_tree "$work" tests/plugins/adapt/hard/project &&
	[ "$("$ferry" -C "$work" log --json | python3 -c 'import json,sys; print(sum(c["kind"] == "fix" for c in json.load(sys.stdin)["checkpoints"]))')" = 0 ]; then
	ok "--dry-run prints the diff and changes nothing"
else
	head -20 "$tmp/dry.out" 2>/dev/null
	bad "--dry-run prints the diff and changes nothing"
fi

# 4b. A fix that would break the parse is refused (a local plugin in .ferry/plugins/).
work="$tmp/breaker"
if init_copy tests/plugins/adapt/hard/project "$work"; then
	mkdir -p "$work/.ferry/plugins/adapt"
	cat >"$work/.ferry/plugins/adapt/breaker.lua" <<'LUA'
-- A rule whose edit leaves an unclosed parenthesis: ferry must refuse it.
return {
	id = "adapt.breaker",
	phase = "adapt",
	title = "breaks the parse",
	severity = "warning",
	run = function(ctx)
		for _, m in ipairs(ctx.query("helpers.py", "(return_statement) @r") or {}) do
			ctx.report{ file = "helpers.py", node = m.r, message = "breaks", suggestion = "none",
				edits = { { start_byte = m.r.start_byte, end_byte = m.r.start_byte + 6, text = "return (" } } }
		end
	end,
}
LUA
	"$ferry" -C "$work" check --plugin adapt.breaker >/dev/null 2>&1
	"$ferry" -C "$work" fix --plugin adapt.breaker --yes >"$tmp/breaker.out" 2>&1
	if grep -qi "parse" "$tmp/breaker.out" && same_tree "$work" tests/plugins/adapt/hard/project; then
		ok "a fix that would break the parse is refused and nothing is written"
	else
		cat "$tmp/breaker.out"
		bad "a fix that would break the parse is refused and nothing is written"
	fi
else
	bad "a fix that would break the parse is refused and nothing is written"
fi

# A fix writing an f-string's own quote into its replacement field parses with the grammar
# (and on Python 3.12) but ends the string on every earlier Python: refused too.
work="$tmp/fquote"
if init_copy tests/plugins/adapt/hard/project "$work"; then
	printf 'import torch\n\n\ndef used():\n    return f"{torch.cuda.max_memory_allocated()} bytes"\n' >"$work/fmem.py"
	mkdir -p "$work/.ferry/plugins/adapt"
	cat >"$work/.ferry/plugins/adapt/fquote.lua" <<'LUA'
-- torch.cuda -> getattr(torch, "npu", torch.cuda) inside f"...", with the same quote
return {
	id = "adapt.fquote",
	phase = "adapt",
	title = "quotes inside an f-string field",
	severity = "warning",
	run = function(ctx)
		local text = ctx.read("fmem.py")
		local a = text:find("torch.cuda.max", 1, true)
		ctx.report{ file = "fmem.py", line = 5, message = "quotes", suggestion = "none",
			edits = { { start_byte = a - 1, end_byte = a - 1 + 10, text = 'getattr(torch, "npu", torch.cuda)' } } }
	end,
}
LUA
	cp "$work/fmem.py" "$tmp/fmem.before"
	"$ferry" -C "$work" check --plugin adapt.fquote >/dev/null 2>&1
	"$ferry" -C "$work" fix --plugin adapt.fquote --yes >"$tmp/fquote.out" 2>&1
	if grep -qi "parse" "$tmp/fquote.out" && cmp -s "$work/fmem.py" "$tmp/fmem.before"; then
		ok "a fix putting an f-string's own quote in its field is refused"
	else
		cat "$tmp/fquote.out"
		bad "a fix putting an f-string's own quote in its field is refused"
	fi
else
	bad "a fix putting an f-string's own quote in its field is refused"
fi

# In one file, a good fix and a breaking one: the good one is applied, the other refused.
work="$tmp/mixed"
if init_copy tests/plugins/adapt/hard/project "$work"; then
	mkdir -p "$work/.ferry/plugins/adapt"
	cat >"$work/.ferry/plugins/adapt/mixed.lua" <<'LUA'
-- Two findings in helpers.py: a harmless comment at the top, and an unclosed parenthesis.
return {
	id = "adapt.mixed",
	phase = "adapt",
	title = "one good and one breaking fix",
	severity = "warning",
	run = function(ctx)
		ctx.report{ file = "helpers.py", line = 1, message = "good", suggestion = "none", key = "good",
			edits = { { start_byte = 0, end_byte = 0, text = "# checked by ferry\n" } } }
		local m = (ctx.query("helpers.py", "(return_statement) @r") or {})[1]
		ctx.report{ file = "helpers.py", node = m.r, message = "breaks", suggestion = "none", key = "bad",
			edits = { { start_byte = m.r.start_byte, end_byte = m.r.start_byte + 6, text = "return (" } } }
	end,
}
LUA
	"$ferry" -C "$work" check --plugin adapt.mixed >/dev/null 2>&1
	"$ferry" -C "$work" fix --plugin adapt.mixed --yes >"$tmp/mixed.out" 2>&1
	if head -n 1 "$work/helpers.py" | grep -q "^# checked by ferry" && python3 -m py_compile "$work/helpers.py" &&
		grep -q "refused" "$tmp/mixed.out" && grep -q "fixed 1 finding" "$tmp/mixed.out"; then
		ok "in one file the good fix is applied and only the breaking one refused"
	else
		cat "$tmp/mixed.out"
		bad "in one file the good fix is applied and only the breaking one refused"
	fi
else
	bad "in one file the good fix is applied and only the breaking one refused"
fi

# In one statement, a good fix and a breaking one: the statement is migrated whole or
# not at all, so neither is applied (not `.npu()` beside a call left on CUDA); a fix in
# another statement of the file still is.
work="$tmp/statement"
if init_copy tests/plugins/adapt/hard/project "$work"; then
	printf 'import torch\n\n\ndef pair(x, y):\n    return x.cuda(), y.cuda()\n' >"$work/pair.py"
	mkdir -p "$work/.ferry/plugins/adapt"
	cat >"$work/.ferry/plugins/adapt/statement.lua" <<'LUA'
-- pair.py: the first .cuda() of the return rewritten, the second broken; a comment elsewhere.
return {
	id = "adapt.statement",
	phase = "adapt",
	title = "two fixes in one statement, one breaking",
	severity = "warning",
	run = function(ctx)
		local text = ctx.read("pair.py")
		local a = text:find("x.cuda()", 1, true)
		local b = text:find("y.cuda()", 1, true)
		ctx.report{ file = "pair.py", line = 5, message = "good", suggestion = "none", key = "good",
			edits = { { start_byte = a + 1, end_byte = a + 5, text = "npu" } } }
		ctx.report{ file = "pair.py", line = 5, message = "breaks", suggestion = "none", key = "bad",
			edits = { { start_byte = b + 1, end_byte = b + 5, text = "npu(" } } }
		ctx.report{ file = "pair.py", line = 1, message = "other", suggestion = "none", key = "other",
			edits = { { start_byte = 0, end_byte = 0, text = "# checked by ferry\n" } } }
	end,
}
LUA
	"$ferry" -C "$work" check --plugin adapt.statement >/dev/null 2>&1
	"$ferry" -C "$work" fix --plugin adapt.statement --yes >"$tmp/statement.out" 2>&1
	if grep -q "    return x.cuda(), y.cuda()" "$work/pair.py" && head -n 1 "$work/pair.py" | grep -q "^# checked by ferry" &&
		[ "$(grep -c "refused" "$tmp/statement.out")" -ge 2 ] && grep -q "fixed 1 finding" "$tmp/statement.out"; then
		ok "a statement is migrated whole or not at all: a refused fix takes its sibling with it"
	else
		cat "$tmp/statement.out" "$work/pair.py"
		bad "a statement is migrated whole or not at all: a refused fix takes its sibling with it"
	fi
else
	bad "a statement is migrated whole or not at all: a refused fix takes its sibling with it"
fi

# In Chinese, every finding of the golden cases and the example reads in Chinese.
zh_check "in Chinese, every finding of the adapt cases reads in Chinese" "$tmp"/golden-* "$tmp/resnet"

echo "adapt: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

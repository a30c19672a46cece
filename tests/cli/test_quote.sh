#!/bin/sh
# The quote by service line (003 §2, the price list of a migration engagement): the
# assessment splits its effort estimate over the service lines categories.json names,
# quote.days.<line> replaces a line's estimate with the days agreed, quote.rate prices
# them, and the report shows the table in the reader's language.
. "$(dirname "$0")/lib.sh"

p="$work/p"
make_training_project "$p"
"$FERRY" init "$p" >/dev/null
"$FERRY" -C "$p" check --phase assess >/dev/null 2>&1

"$FERRY" -C "$p" report --format json --output "$work/r1.json" >/dev/null 2>&1
python3 - "$work/r1.json" "$top/plugins/data/categories.json" <<'PY' && ok "the lines split the effort estimate: base to the survey, each category to its line" || fail "split: $(head -c 400 "$work/r1.json")"
import json, sys
a = json.load(open(sys.argv[1]))["assessment"]
table = json.load(open(sys.argv[2]))
q = a["quote"]
names = [s["name"] for s in q["services"]]
assert names == [s["name"] for s in table["services"]], names
line_of = {c["name"]: c["service"] for c in table["categories"]}
want = {n: 0.0 for n in names}
want["survey"] += a["base_days"]
for cat, w in a["weights"].items():
    want[line_of[cat]] += w * a["counts"][cat]
for s in q["services"]:
    assert abs(s["estimate_days"] - round(want[s["name"]], 1)) < 0.051, (s, want[s["name"]])
    assert s["days"] == s["estimate_days"] and "agreed_days" not in s and "amount" not in s, s
assert q["days"] == a["effort_days"], (q["days"], a["effort_days"])  # nothing agreed: the estimate
assert "rate" not in q and "amount" not in q, q
PY
"$FERRY" -C "$p" report --format md --output "$work/r1.md" >/dev/null 2>&1
expect_grep "^### Quote by service line" "$work/r1.md" "the report has the quote"
expect_grep "^| Service line | Person-days | Basis |$" "$work/r1.md" "without a rate it has no amount column"
expect_grep "^| migration survey and assessment | [0-9.]* | estimate |" "$work/r1.md" "each line by its title, its days an estimate"
expect_grep "Price it with \`ferry config quote.rate PRICE\`" "$work/r1.md" "it says how to price it"
expect_grep "\`ferry config quote.days.LINE DAYS\`" "$work/r1.md" "it says how to record the days agreed"

expect_exit 0 "a rate is taken" -- "$FERRY" -C "$p" config quote.rate 3000
expect_exit 0 "a currency is taken" -- "$FERRY" -C "$p" config quote.currency CNY
expect_exit 0 "agreed days for a line are taken" -- "$FERRY" -C "$p" config quote.days.environment 5
expect_exit 2 "agreed days for a line the quote has not are refused" -- "$FERRY" -C "$p" config quote.days.catering 2
expect_grep "'catering' is not a service line of the quote (one of: survey, environment, libraries, adaptation" "$work/err" \
	"the refusal names the lines"
one_line "$work/err" "in one line"
expect_exit 2 "a negative rate is refused" -- "$FERRY" -C "$p" config quote.rate -5

"$FERRY" -C "$p" report --format json --output "$work/r2.json" >/dev/null 2>&1
python3 - "$work/r2.json" <<'PY' && ok "agreed days replace the estimate and the rate prices every line" || fail "priced: $(head -c 400 "$work/r2.json")"
import json, sys
q = json.load(open(sys.argv[1]))["assessment"]["quote"]
env = [s for s in q["services"] if s["name"] == "environment"][0]
assert env["agreed_days"] == 5 and env["days"] == 5 and env["amount"] == 15000, env
assert q["rate"] == 3000 and q["currency"] == "CNY", q
assert abs(q["days"] - sum(s["days"] for s in q["services"])) < 0.05 * len(q["services"]), q
assert abs(q["amount"] - q["days"] * 3000) < 0.01, q
assert all(abs(s["amount"] - s["days"] * 3000) < 0.01 for s in q["services"]), q
PY
"$FERRY" -C "$p" report --format md --output "$work/r2.md" >/dev/null 2>&1
expect_grep "^| Service line | Person-days | Basis | Amount (CNY) |$" "$work/r2.md" "with a rate the amount column names the currency"
expect_grep "^| environment deployment | 5.0 | agreed (estimate [0-9.]*) | 15000.00 |$" "$work/r2.md" "an agreed line says so, with its estimate"
expect_grep "^| Total | [0-9.]* |  | [0-9.]* |$" "$work/r2.md" "a total row"
expect_grep "At 3000.00 CNY per person-day" "$work/r2.md" "the rate is stated"

FERRY_LANG=zh "$FERRY" -C "$p" report --format md --output "$work/zh.md" >/dev/null 2>&1
expect_grep "^### 按服务项报价" "$work/zh.md" "in Chinese: the section"
expect_grep "^| 环境部署搭建 | 5.0 | 商定（估算 [0-9.]*） | 15000.00 |$" "$work/zh.md" "in Chinese: the lines by 003's names"
"$FERRY" -C "$p" report --format html --output "$work/r2.html" >/dev/null 2>&1
expect_grep "third-party library adaptation" "$work/r2.html" "the HTML report has the table too"
# the effort counts work to do: a library supported as it is (an info finding) adds no
# days, and one library is one unit of work however many files import it and whether its
# requirement is listed too; a CUDA kernel and the setup.py line that builds it by name
# are one kernel
u="$work/units"
mkdir -p "$u/pkg" "$u/csrc"
printf 'import transformers\nimport accelerate\nimport peft\n' >"$u/serve.py"
printf 'transformers==4.44.0\naccelerate==0.33.0\npeft==0.12.0\n' >"$u/requirements.txt"
"$FERRY" init "$u" >/dev/null
"$FERRY" -C "$u" check --phase assess >/dev/null 2>&1
"$FERRY" -C "$u" status --format json >"$work/u1.json" 2>/dev/null
python3 - "$work/u1.json" <<'PY' && ok "supported libraries alone: the effort is the base, no library days" || fail "supported libraries priced as work: $(head -c 600 "$work/u1.json")"
import json, sys
a = json.load(open(sys.argv[1]))["assessment"]
assert a["effort_days"] == a["base_days"], (a["effort_days"], a["formula"])
assert "libraries" not in a["counts"], a["counts"]
PY
printf 'import xformers\nimport xformers.ops\n' >"$u/pkg/a.py"
printf 'import xformers\n' >"$u/pkg/b.py"
printf 'xformers\n' >>"$u/requirements.txt"
printf '__global__ void k(float *x) { x[0] = 1; }\n' >"$u/csrc/k.cu"
printf 'from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\nsetup(name="x", ext_modules=[CUDAExtension("k", ["csrc/k.cu"])])\n' >"$u/setup.py"
"$FERRY" -C "$u" check --phase assess >/dev/null 2>&1
"$FERRY" -C "$u" status --format json >"$work/u2.json" 2>/dev/null
"$FERRY" -C "$u" findings --format json >"$work/u2f.json" 2>/dev/null
python3 - "$work/u2.json" "$work/u2f.json" <<'PY' && ok "xformers in two files and the requirements is one library; a kernel and its build line one kernel" || fail "units counted more than once: $(head -c 800 "$work/u2.json")"
import json, sys
a = json.load(open(sys.argv[1]))["assessment"]
fs = json.load(open(sys.argv[2]))["findings"]
xf = [f for f in fs if f["plugin"] == "assess.gpu_libraries" and "xformers" in f["message"] and f["severity"] != "info"]
assert len(xf) == 4, [f["message"] for f in xf]  # each site is still reported
kern = [f for f in fs if f["plugin"] == "assess.cuda_extensions"]
assert len(kern) == 2, [f["message"] for f in kern]
assert a["counts"]["libraries"] == 1 and a["counts"]["custom_kernel"] == 1, a["counts"]
PY

finish

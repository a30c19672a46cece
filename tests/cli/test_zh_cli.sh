#!/bin/sh
# The command line in Chinese (FERRY_LANG=zh): every line the commands print on stdout and
# stderr — results, tables, help, the manual page, usage errors, refusals — is Chinese
# (tests/zh_check.py: no run of three plain English words outside code, paths and
# identifiers). Finding messages come from the plugins' catalogs and are covered by
# test_zh_coverage.sh; here the engagement's findings are listed as JSON, not as text.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
fx=$top/tests/fixtures

p="$work/p"
make_project "$p"
printf 'import torch\nx = torch.zeros(1).cuda(\n' >"$p/broken.py" # a file Python cannot parse
out="$work/zh"
mkdir -p "$out"
n=0
zh() { # CMD...: run ferry in Chinese, keep both streams
	n=$((n + 1))
	FERRY_LANG=zh "$FERRY" "$@" >"$out/$n.out" 2>"$out/$n.err"
}
zh init "$p" --client 客户
zh -C "$p" status
zh -C "$p" plugins
zh -C "$p" check --phase assess --format json
zh -C "$p" findings --plugin ferry.source
zh -C "$p" config
zh -C "$p" config target.soc Ascend910B2
zh -C "$p" waive 1 --reason "客户确认不需要"
zh -C "$p" unwaive 1 --reason "重新评估"
zh -C "$p" signoff assess
signoff_out="$out/$n.out"
zh -C "$p" fix --all --dry-run
zh -C "$p" ingest loss-log "$fx/loss/gpu_plain.log" --label gpu
zh -C "$p" ingest loss-log "$fx/loss/npu_blowup_plain.log" --label npu
zh -C "$p" compare loss gpu npu
zh -C "$p" ingest dump "$fx/dump/gpu_dump" --label gd
zh -C "$p" ingest dump "$fx/dump/npu_dump" --label nd
zh -C "$p" compare dump gd nd
zh -C "$p" log --events
events_out="$out/$n.out"
zh -C "$p" verify
zh -C "$p" export patches "$work/patches"
zh help
zh --help
zh check --help
zh compare --help
zh nosuchcommand
zh ./no/such/dir
zh -C "$p" status --bogus
zh -C "$p" ingest loss-log "$work/missing.log"
zh -C "$p" fix --all
zh -C "$p" waive 1
zh -C "$p" check --phase nosuch
printf 'not a tensor\n' >"$work/notes.txt"
zh -C "$p" ingest dump "$work/notes.txt"
mkdir -p "$work/empty"
zh -C "$work/empty" status
# refusals from every layer: history, readers of each artifact kind, reports, settings, sign-off
zh -C "$p" diff 12
zh -C "$p" diff deadbeefdead
zh -C "$p" export branch "bad..name" --to "$p"
# a client repository none of whose commits holds the project as received, at its root
mkdir -p "$work/client"
printf 'print(1)\n' >"$work/client/other.py"
(cd "$work/client" && git init -q && git add -A && git -c user.name=c -c user.email=c@example.org commit -qm other)
zh -C "$p" export branch x --to "$work/client"
nobase_err="$out/$n.err"
zh -C "$p" report --format docx
zh -C "$p" report --format pdf
zh -C "$p" config tolerance.loss lots
zh -C "$p" config no.such.key 1
zh -C "$p" signoff design
printf '\223NUMPY\001\000\377\377' >"$work/cut.npy"
zh -C "$p" compare dump "$work/cut.npy" "$work/cut.npy"
printf 'PK\003\004 not really a zip' >"$work/bad.pt"
zh -C "$p" ingest dump "$work/bad.pt"
printf 'a,b,c\n1,2,3\n' >"$work/kernel_details.csv"
zh -C "$p" ingest profile "$work/kernel_details.csv"
printf '\010\007\022\377\377' >"$work/bad.onnx"
zh -C "$p" ingest onnx "$work/bad.onnx"
cp -r "$p" "$work/broken"
: >"$work/broken/.ferry/engagement.db"
zh -C "$work/broken" status
zh -C "$p" report --format md # no --lang, no language setting: the reader's language
zh -C "$p" status
status_out="$out/$n.out"
if python3 "$top/tests/zh_check.py" lines "$out"/*.out "$out"/*.err >"$work/english"; then
	ok "$n commands: every line on stdout and stderr is Chinese"
else
	fail "English left in the CLI output:"
	sed 's@^.*/zh/@     | @' "$work/english" | head -20
fi
grep -q "已豁免 1 个问题" "$out"/*.out && ok "counts read naturally (已豁免 1 个问题)" || fail "waive output: $(cat "$out/7.out")"

# the status in Chinese: the effort formula and a phase table whose columns line up
grep -q "^ *工作量 = 基础 .* 人天$" "$status_out" && ok "the effort formula reads in Chinese" ||
	fail "status formula: $(grep -i effort "$status_out")"
python3 - "$status_out" <<'PY' && ok "the phase table's columns line up in display width" || fail "phase table misaligned: $(tail -8 "$status_out")"
import sys, unicodedata
rows = [l.rstrip("\n") for l in open(sys.argv[1], encoding="utf-8")]
start = next(i for i, l in enumerate(rows) if l.startswith("阶段"))
width = lambda s: sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
table = rows[start:start + 8]
assert len(table) == 8 and table[1].startswith("评估"), table
assert len({width(l) for l in table}) == 1, [width(l) for l in table]
PY

# where the project sits in the client's repository is said in Chinese, not as an English
# fragment inside the Chinese sentence
grep -q "仓库根目录" "$nobase_err" && ! grep -q "repository's root" "$nobase_err" &&
	ok "export branch without a matching commit names the repository's root in Chinese" ||
	fail "export branch without a base: $(cat "$nobase_err")"

# a phase inside a Chinese sentence is named in Chinese, never by its id
grep -q "评估阶段已由 .* 签署确认" "$signoff_out" && ok "signoff confirms with the phase's Chinese name" ||
	fail "signoff: $(cat "$signoff_out")"
grep -q "评估阶段已签署确认" "$events_out" && ! grep -Eq "(assess|design|environment|adapt|tune|infer-[a-z]+) 已签署确认" "$events_out" &&
	ok "log --events names the signed-off phase in Chinese" || fail "log --events: $(grep 签署确认 "$events_out" | head -2)"

# a revert refused for later changes lists them with Chinese punctuation: the checkpoints
# joined by ；, the files of one checkpoint by 、, never an ASCII "; " or ", " in the sentence
r="$work/rv"
mkdir -p "$r"
printf 'import torch\nm = torch.nn.Linear(4, 2).cuda()\n' >"$r/train.py"
printf 'import torch\nd = "cuda"\n' >"$r/util.py"
"$FERRY" init "$r" >/dev/null 2>&1
edit() { # OUT INDEX UTIL: hand-edit train.py (and util.py unless UTIL is empty); status records it
	printf 'import torch\nm = torch.nn.Linear(4, %s).npu(%s)\n' "$1" "$2" >"$r/train.py"
	[ -z "$3" ] || printf 'import torch\nd = "%s"\n' "$3" >"$r/util.py"
	"$FERRY" -C "$r" status >/dev/null 2>&1
}
edit 2 "" npu
first=$(sqlite3 "$r/.ferry/engagement.db" "SELECT max(id) FROM checkpoints")
edit 2 0 npu:0
edit 3 0 ""
FERRY_LANG=zh "$FERRY" -C "$r" revert "$first" >/dev/null 2>"$work/rv.err"
expect_grep "train.py；检查点 #.* train.py、util.py；请先回退" "$work/rv.err" \
	"zh revert refusal: later checkpoints joined by ；, their files by 、"
grep -q '[;,] ' "$work/rv.err" && fail "zh revert refusal has ASCII separators: $(cat "$work/rv.err")" ||
	ok "zh revert refusal: no ASCII ; or , between clauses"

# English keeps its plurals
FERRY_LANG=en "$FERRY" -C "$p" waive 1 2 --reason "both" >"$work/en" 2>&1
expect_grep "^waived 2 findings$" "$work/en" "English: 2 findings"
FERRY_LANG=en "$FERRY" -C "$p" unwaive 1 --reason "one" >"$work/en" 2>&1
expect_grep "withdrew the waiver of 1 finding;" "$work/en" "English: 1 finding"

# the manual page in Chinese
man=$top/build/man/zh_CN/ferry.1
if [ -f "$man" ]; then
	groff -k -man -Tutf8 -ww -Wbreak "$man" >"$work/man.txt" 2>"$work/man.err" || true
	[ ! -s "$work/man.err" ] && ok "the zh manual page renders without warnings" || fail "groff: $(head -3 "$work/man.err")"
	grep -q "将 PyTorch 项目从 NVIDIA GPU 迁移到昇腾 NPU" "$work/man.txt" && grep -q "运行检查并记录问题" "$work/man.txt" &&
		ok "it is in Chinese (name, commands)" || fail "zh man page text: $(head -5 "$work/man.txt")"
else
	fail "build/man/zh_CN/ferry.1 is not built"
fi
# A Chinese locale that is not installed (common on servers): the language still comes
# from LANG, and the system's error texts (strerror) come out in UTF-8 like the rest, not
# as a run of '?' from the C locale's ASCII character set.
missing=""
for l in zh_CN.UTF-8 zh_XX.UTF-8; do
	if LC_ALL=$l locale 2>&1 >/dev/null | grep -q .; then missing=$l; break; fi
done
if [ -n "$missing" ]; then
	env -u FERRY_LANG -u LC_ALL -u LC_MESSAGES -u LANGUAGE LANG="$missing" \
		"$FERRY" -C "$p" ingest loss-log "$work/nonexistent.log" >"$work/out" 2>"$work/err"
	! grep -q '???' "$work/err" && ok "LANG=$missing (not installed): no '?' for the system's error text" ||
		fail "LANG=$missing (not installed): $(cat "$work/err")"
	if [ -f /usr/share/locale/zh_CN/LC_MESSAGES/libc.mo ]; then
		expect_grep "没有那个文件或目录" "$work/err" "LANG=$missing (not installed): the reason is glibc's Chinese text"
	fi
	expect_grep "^ferry：" "$work/err" "LANG=$missing (not installed): ferry's own text is Chinese"
else
	echo "skip: every Chinese locale tried is installed"
fi

# A copy of the binary away from its build tree, not installed, finds no Chinese catalog:
# a Chinese report would come out in English, so it is refused, and nothing is written.
mkdir -p "$work/bin"
cp "$FERRY" "$work/bin/ferry"
expect_exit 3 "a Chinese report without the catalog is refused" -- \
	env -u FERRY_LOCALEDIR "$work/bin/ferry" -C "$p" report --format md --lang zh --output "$work/lonely.md"
expect_grep "Chinese catalog" "$work/err" "the refusal names the missing catalog"
one_line "$work/err" "the refusal is one line"
[ -e "$work/lonely.md" ] && fail "an English report was written as the Chinese one" || ok "no report was written"
expect_exit 0 "with FERRY_LOCALEDIR it is written in Chinese" -- \
	env FERRY_LOCALEDIR="$top/build/locale" "$work/bin/ferry" -C "$p" report --format md --lang zh --output "$work/found.md"
grep -q "迁移评估报告" "$work/found.md" && ok "the report is in Chinese" || fail "the report is not in Chinese"
finish

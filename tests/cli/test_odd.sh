#!/bin/sh
# Odd files and read-only engagements: an unreadable file, a directory nested deeper
# than 100 levels and a file vanishing during the start-of-command sync are warnings
# naming the path, not failed commands; an archived (read-only) engagement can still be
# audited; ingest validates content at any size; config refuses non-finite numbers.
#
# File permissions only bite an unprivileged user. When the suite runs as root, the
# cases that need them run ferry as the unprivileged user "nobody" (setpriv) on a
# project that user owns (or, for the read-only case, cannot write): a real permission
# denial, not a simulation. Without setpriv those cases are skipped with a note.
. "$(dirname "$0")/lib.sh"

chmod 755 "$work"
as_user() { "$@"; }
can_deny=1
if [ "$(id -u)" -eq 0 ]; then
	if command -v setpriv >/dev/null 2>&1 && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
		mkdir -p "$work/home"
		chown 65534:65534 "$work/home"
		as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$work/home" "$@"; }
	else
		can_deny=0
		echo "note: running as root without setpriv: permission cases skipped"
	fi
fi
# give DIR to the user the permission cases run as
own() { [ "$(id -u)" -ne 0 ] || chown -R 65534:65534 "$1"; }

# ---- config: non-finite numbers ------------------------------------------------
c="$work/cfg"
make_project "$c"
"$FERRY" init "$c" >/dev/null
for v in 1e999 inf nan -inf infinity 1e999%; do
	expect_exit 2 "config tolerance.loss $v refused" -- "$FERRY" -C "$c" config tolerance.loss "$v"
	one_line "$work/err" "config tolerance.loss $v: one line"
done
expect_exit 2 "config model.params_b 1e400 refused" -- "$FERRY" -C "$c" config model.params_b 1e400
expect_grep "finite" "$work/err" "the refusal says the number must be finite"
expect_exit 2 "config tolerance.loss ' 0.01' refused (a leading blank)" -- "$FERRY" -C "$c" config tolerance.loss " 0.01"
expect_exit 2 "config tolerance.loss '0.01 ' refused (a trailing blank)" -- "$FERRY" -C "$c" config tolerance.loss "0.01 "
expect_exit 2 "config target.cards ' 8' refused" -- "$FERRY" -C "$c" config target.cards " 8"
expect_exit 0 "config tolerance.loss 0.02 accepted" -- "$FERRY" -C "$c" config tolerance.loss 0.02

# ---- ingest validates content at any size ---------------------------------------
# The large inputs are made here: text by tr over /dev/zero, models sparse (truncate).
g="$work/ing"
make_project "$g"
"$FERRY" init "$g" >/dev/null
big="$work/big"
mkdir -p "$big"
head -c 300000000 /dev/zero | tr '\0' 'a' >"$big/text"
arts() { sqlite3 "$g/.ferry/engagement.db" "SELECT count(*) FROM artifacts"; }
n0=$(arts)
expect_exit 3 "300 MB of non-JSON text refused as env-probe" -- "$FERRY" -C "$g" ingest env-probe "$big/text"
one_line "$work/err" "env-probe refusal: one line"
expect_grep "text" "$work/err" "the refusal names the file"
expect_exit 3 "300 MB of non-JSON text refused as bench" -- "$FERRY" -C "$g" ingest bench "$big/text"
one_line "$work/err" "bench refusal: one line"
expect_exit 3 "300 MB of non-JSON text refused as a trace profile" -- sh -c "{ printf '['; cat '$big/text'; } >'$big/trace.json' && exec '$FERRY' -C '$g' ingest profile '$big/trace.json'"
rm -f "$big/trace.json"
# a text log with a NUL byte far beyond the first 64 MiB
{ printf 'step 1 loss 2.5\n'; cat "$big/text"; printf '\000\n'; } >"$big/loss.log"
expect_exit 3 "a 300 MB loss log with a NUL byte at its end refused" -- "$FERRY" -C "$g" ingest loss-log "$big/loss.log"
expect_grep "binary" "$work/err" "the refusal says binary data"
rm -f "$big/loss.log" "$big/text"
# a valid 300 MB ONNX model: ir_version 7, a graph whose one initializer holds ~300 MB of
# raw_data (sparse); ingest reads the graph and skips the weights
len=300000000
python3 -c "
import sys
def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n: return bytes(out)
raw = b'\x4a' + varint($len)
init = b'\x2a' + varint(len(raw) + $len) + raw
sys.stdout.buffer.write(b'\x08\x07\x42\x02\x10\x0d\x3a' + varint(len(init) + $len) + init)" >"$big/model.onnx"
hdr=$(stat -c %s "$big/model.onnx")
truncate -s $((hdr + len)) "$big/model.onnx"
expect_exit 0 "a valid 300 MB ONNX model accepted" -- "$FERRY" -C "$g" ingest onnx "$big/model.onnx"
truncate -s $((hdr + len - 1)) "$big/model.onnx"
expect_exit 3 "the same model one byte short refused" -- "$FERRY" -C "$g" ingest onnx "$big/model.onnx"
expect_grep "truncated" "$work/err" "the refusal says truncated"
# a large file that is not a model at all
truncate -s 0 "$big/model.onnx"
printf '\377\377\377' >"$big/model.onnx"
truncate -s 300000000 "$big/model.onnx"
expect_exit 3 "300 MB that is not protobuf refused as onnx" -- "$FERRY" -C "$g" ingest onnx "$big/model.onnx"
rm -rf "$big"
[ "$(arts)" -eq $((n0 + 1)) ] && ok "only the valid model was recorded" || fail "artifacts: $(arts), wanted $((n0 + 1))"

if [ "$can_deny" -eq 1 ]; then
	# ---- odd files at init: left out of the baseline, named by the next command ------
	p="$work/odd-init"
	make_project "$p"
	mkdir -p "$p/locked" "$p/vendor/lib"
	echo 'secret = 1' >"$p/secret.py"
	echo 'x = 1' >"$p/locked/a.py"
	echo 'v = 1' >"$p/vendor/lib/v.py"
	echo 'w = 1' >"$p/vendor/lib/hidden.py"
	git -C "$p/vendor/lib" init -q
	own "$p"
	chmod 000 "$p/secret.py" "$p/locked" "$p/vendor/lib/hidden.py"
	expect_exit 0 "init with an unreadable file, directory and nested-repository file" -- as_user "$FERRY" init "$p"
	git --git-dir="$p/.ferry/history.git" ls-tree -r --name-only HEAD >"$work/tree"
	printf '.gitignore\nmodels/net.py\ntrain.py\nvendor/lib/v.py\n' | cmp -s - "$work/tree" &&
		ok "the baseline holds every readable file and nothing else" ||
		{ fail "baseline after an odd init"; sed 's/^/     | /' "$work/tree"; }
	git --git-dir="$p/.ferry/history.git" fsck --strict >"$work/fsck" 2>&1 && ok "git fsck clean after init" || fail "git fsck after init"
	expect_exit 0 "status after an odd init" -- as_user "$FERRY" -C "$p" status
	expect_grep "warning: secret.py: unreadable" "$work/err" "the unreadable file is named"
	expect_grep "warning: locked/: unreadable directory" "$work/err" "the unreadable directory is named"
	expect_grep "warning: vendor/lib/hidden.py: unreadable" "$work/err" "the nested repository's unreadable file is named"
	chmod 755 "$p/locked"
	chmod 644 "$p/secret.py" "$p/vendor/lib/hidden.py"

	# ---- odd files during the start-of-command sync --------------------------------
	p="$work/odd"
	make_project "$p"
	"$FERRY" init "$p" >/dev/null
	own "$p"
	echo 'secret = 1' >"$p/secret.py"
	own "$p/secret.py"
	chmod 000 "$p/secret.py"
	expect_exit 0 "status with an unreadable new file" -- as_user "$FERRY" -C "$p" status
	expect_grep "warning: secret.py: unreadable" "$work/err" "the warning names the unreadable file"
	echo '# edited' >>"$p/train.py"
	chmod 000 "$p/train.py"
	expect_exit 0 "status with an unreadable edited (tracked) file" -- as_user "$FERRY" -C "$p" status
	expect_grep "warning: train.py: unreadable" "$work/err" "the warning names the tracked file"
	chmod 644 "$p/train.py"
	mkdir -p "$p/locked"
	echo x >"$p/locked/a.py"
	own "$p/locked"
	chmod 000 "$p/locked"
	expect_exit 0 "log with an unreadable directory" -- as_user "$FERRY" -C "$p" log
	expect_grep "warning: locked/: unreadable directory" "$work/err" "the warning names the directory"
	chmod 755 "$p/locked"
	echo '# edited' >>"$p/models/net.py"
	chmod 000 "$p/models"
	expect_exit 0 "status with a recorded directory turned unreadable" -- as_user "$FERRY" -C "$p" status
	expect_grep "warning: models/: unreadable directory" "$work/err" "the warning names the recorded directory"
	chmod 755 "$p/models"
	git --git-dir="$p/.ferry/history.git" ls-tree -r --name-only HEAD >"$work/tree"
	expect_grep "^models/net.py$" "$work/tree" "its files stay in the record"
	chmod 644 "$p/secret.py"

	d="$p/deep"
	i=0
	while [ $i -lt 110 ]; do d="$d/d"; i=$((i + 1)); done
	mkdir -p "$d"
	echo 'x = 1' >"$d/m.py"
	echo 'y = 2' >"$p/beside.py"
	own "$p"
	expect_exit 0 "status with a directory nested 110 levels deep" -- as_user "$FERRY" -C "$p" status
	expect_grep "warning: deep/d/d.*nested deeper than 100" "$work/err" "the warning names the deep directory"
	git --git-dir="$p/.ferry/history.git" ls-tree -r --name-only HEAD >"$work/tree"
	expect_grep "^beside.py$" "$work/tree" "the other new file is still recorded"
	expect_grep "^secret.py$" "$work/tree" "the file readable again is recorded"
	chmod 000 "$p/secret.py"
	expect_exit 0 "check with an unreadable file and a deep directory" -- as_user "$FERRY" -C "$p" check --phase assess
	expect_grep "secret.py" "$work/out" "check names the unreadable file in a finding"
	expect_grep "warning: secret.py: unreadable" "$work/err" "check warns about it during the sync"
	chmod 644 "$p/secret.py"
	expect_exit 0 "verify after the odd files" -- as_user "$FERRY" -C "$p" verify

	# files appearing and vanishing while commands sync: every command succeeds
	rm -rf "$p/deep"
	(
		n=0
		while [ ! -f "$work/stop" ]; do
			echo "v = $n" >"$p/churn_$((n % 7)).py"
			rm -f "$p/churn_$(((n + 3) % 7)).py"
			n=$((n + 1))
		done
	) &
	churner=$!
	bad=0
	i=0
	while [ $i -lt 25 ]; do
		"$FERRY" -C "$p" status >"$work/out" 2>"$work/err.$i" || { bad=$((bad + 1)); cp "$work/err.$i" "$work/err.bad"; }
		i=$((i + 1))
	done
	touch "$work/stop"
	wait $churner
	[ $bad -eq 0 ] && ok "25 syncs while files appear and vanish all succeed" ||
		{ fail "$bad of 25 syncs failed while files vanished"; sed 's/^/     | /' "$work/err.bad" | head -3; }
	expect_exit 0 "verify after the churn" -- "$FERRY" -C "$p" verify
	# ---- a read-only (archived) engagement can be audited --------------------------
	a="$work/archive"
	make_project "$a"
	"$FERRY" init "$a" --client "Archived" >/dev/null
	"$FERRY" -C "$a" check --phase assess >/dev/null 2>&1
	"$FERRY" -C "$a" report --format md --output "$work/first.md" >/dev/null 2>&1
	rm -f "$a/.ferry/lock"
	own "$a"
	chmod -R a-w "$a"
	mkdir -p "$work/reports"
	own "$work/reports"
	sum() { (cd "$1" && find . -print0 | sort -z | xargs -0 ls -ld --time-style=+%s | sha256sum; find . -type f -print0 | sort -z | xargs -0 cat | sha256sum); }
	before=$(sum "$a")
	expect_exit 0 "verify on a read-only engagement" -- as_user "$FERRY" -C "$a" verify
	expect_grep "audit events intact" "$work/out" "verify reports the chain"
	expect_exit 0 "log on a read-only engagement" -- as_user "$FERRY" -C "$a" log --events
	expect_grep "baseline" "$work/out" "log lists the baseline"
	expect_exit 0 "findings on a read-only engagement" -- as_user "$FERRY" -C "$a" findings
	expect_exit 0 "status on a read-only engagement" -- as_user "$FERRY" -C "$a" status --json
	expect_grep '"Archived"' "$work/out" "status shows the engagement"
	expect_exit 0 "report --output elsewhere on a read-only engagement" -- \
		as_user "$FERRY" -C "$a" report --format md --output "$work/reports/r.md"
	[ -s "$work/reports/r.md" ] && ok "the report is written" || fail "no report written"
	expect_grep "read-only" "$work/err" "report says it could not be recorded in the read-only record"
	echo '# edited after archiving' >"$work/edit.txt"
	[ "$(sum "$a")" = "$before" ] && ok "nothing in the archived engagement changed (no lock, no sync)" ||
		fail "the read-only engagement changed"
	[ ! -e "$a/.ferry/lock" ] && ok "no lock file taken" || fail "a lock file appeared"
	expect_exit 3 "a writing command on a read-only engagement fails" -- as_user "$FERRY" -C "$a" config strategy auto
	one_line "$work/err" "the writing command: one line"
	chmod -R u+w "$a"
fi

# ---- a file that vanishes between every look and every read ------------------------
# The churn above hits this race only now and then; the shim (tests/tools/vanish_shim.c)
# makes every open of one file fail as if it had just been deleted while stat still finds
# it. The sync must leave that file as last recorded, say so, and record the rest.
v="$work/vanish"
make_project "$v"
"$FERRY" init "$v" >/dev/null
shim="$work/vanish.so"
if ${CC:-cc} -shared -fPIC -o "$shim" "$top/tests/tools/vanish_shim.c" -ldl 2>"$work/cc.err"; then
	echo 'f = 1' >"$v/flicker.py"
	echo 'b = 2' >"$v/steady.py"
	echo '# edited' >>"$v/train.py"
	# vanishing_status NAME DESC: status while NAME vanishes under every read
	vanishing_status() {
		expect_exit 0 "status while $2 vanishes under every read" -- \
			env LD_PRELOAD="$shim" FERRY_TEST_VANISH="$1" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
			"$FERRY" -C "$v" status
		expect_grep "warning: $1: " "$work/err" "the warning names $1"
	}
	vanishing_status flicker.py "a new file"
	git --git-dir="$v/.ferry/history.git" ls-tree -r --name-only HEAD >"$work/tree"
	expect_grep "^steady.py$" "$work/tree" "the steady new file is recorded beside it"
	grep -q "^flicker.py$" "$work/tree" && fail "the vanishing file was recorded" || ok "the vanishing file is not recorded half-read"
	echo '# again' >>"$v/train.py"
	vanishing_status train.py "a tracked, edited file"
	git --git-dir="$v/.ferry/history.git" ls-tree -r --name-only HEAD >"$work/tree"
	expect_grep "^train.py$" "$work/tree" "the tracked file stays in the record"
	expect_exit 0 "status once the file reads again" -- "$FERRY" -C "$v" status
	git --git-dir="$v/.ferry/history.git" ls-tree -r --name-only HEAD >"$work/tree"
	expect_grep "^flicker.py$" "$work/tree" "the next sync records the file"
	git --git-dir="$v/.ferry/history.git" show HEAD:train.py | grep -q "# again" &&
		ok "the next sync records the tracked file's edit" || fail "the tracked file's edit is not recorded"
	expect_exit 0 "verify after the vanishing files" -- "$FERRY" -C "$v" verify
else
	echo "note: no C compiler for the shim: vanishing-file cases skipped"
fi

finish

#!/bin/sh
# The command table: every command answers --help from it, the README's reference and the
# manual page list what it declares, the shell completion completes from it, the old
# spellings still parse, and `make install DESTDIR=…` gives a ferry that runs on its own.
. "$(dirname "$0")/lib.sh"

commands=$("$FERRY" help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$commands" ] && ok "ferry help lists the commands" || fail "ferry help lists no command"

# ---------------------------------------------------------------- --help everywhere
bad=""
for c in $commands; do
	for h in --help -h; do
		if ! "$FERRY" "$c" $h >"$work/h" 2>"$work/e" || ! grep -q "^usage: ferry $c" "$work/h" || [ -s "$work/e" ]; then
			bad="$bad $c$h"
		fi
	done
	"$FERRY" help "$c" >"$work/h2"
	cmp -s "$work/h" "$work/h2" || bad="$bad help-$c"
done
[ -z "$bad" ] && ok "every command answers --help and -h on stdout with exit 0, as ferry help CMD does" ||
	fail "--help:$bad"
expect_exit 0 "help after operands and options (check --phase assess --help)" -- "$FERRY" check --phase assess --help
expect_grep "^usage: ferry check" "$work/out" "check's help is printed"
mkdir -p "$work/p" && printf 'import torch\nx = torch.ones(1).cuda()\n' >"$work/p/train.py" && "$FERRY" init "$work/p" >/dev/null
"$FERRY" -C "$work/p" check >/dev/null 2>&1
expect_exit 0 "a value that looks like -h is a value: waive 1 --reason -h" -- "$FERRY" -C "$work/p" waive 1 --reason -h
expect_grep "waived 1 finding" "$work/out" "the finding was waived, no help shown"
expect_exit 2 "help of an unknown command is a usage error" -- "$FERRY" help nosuch
one_line "$work/err" "help of an unknown command: one line"

# ---------------------------------------------------------------- old and new spellings
for c in status plugins log; do
	"$FERRY" -C "$work/p" $c --json >"$work/j1" 2>/dev/null
	"$FERRY" -C "$work/p" $c --format json >"$work/j2" 2>/dev/null
	if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/j2" && cmp -s "$work/j1" "$work/j2"; then
		ok "$c --format json is JSON, and --json still gives the same"
	else
		fail "$c --format json"
	fi
done
expect_exit 2 "status --format xml is refused" -- "$FERRY" -C "$work/p" status --format xml

# ---------------------------------------------------------------- a path that is not there
expect_exit 2 "a directory that does not exist" -- "$FERRY" "$work/nosuch/project"
expect_grep "no such directory" "$work/err" "says no such directory, not unknown command"
one_line "$work/err" "no such directory: one line"
expect_exit 2 "a misspelt command" -- "$FERRY" chekc
expect_grep "chekc: unknown command" "$work/err" "a word that is no path is an unknown command"

# ---------------------------------------------------------------- README and manual page
python3 - "$top/README.md" "$FERRY" $commands <<'PY' && ok "README's command reference has every command and each of its options" || fail "README reference"
import re, subprocess, sys
readme, ferry, cmds = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3:]
rows = [l for l in readme.splitlines() if l.startswith("| `ferry ")]
missing = []
for c in cmds:
    row = [r for r in rows if re.match(r"\| `ferry %s\b" % re.escape(c), r)]
    if not row:
        missing.append(c)
        continue
    help = subprocess.run([ferry, c, "--help"], capture_output=True, text=True).stdout
    for opt in re.findall(r"^  (--[a-z-]+)", help, re.M):
        if opt != "--help" and opt not in " ".join(row):
            missing.append(c + " " + opt)
assert not missing, missing
PY
"$FERRY" help --man >"$work/ferry.1"
ok_man=1
for c in $commands; do grep -q "^\.B ferry $(echo "$c" | sed 's/-/\\\\-/g')" "$work/ferry.1" || ok_man=0; done
grep -q '^\.TH FERRY 1' "$work/ferry.1" || ok_man=0
[ $ok_man = 1 ] && ok "the manual page has every command" || fail "manual page"
if command -v groff >/dev/null 2>&1; then
	groff -man -ww -z "$work/ferry.1" 2>"$work/groff" && [ ! -s "$work/groff" ] && ok "groff reads the manual page without a warning" ||
		fail "groff: $(head -3 "$work/groff")"
fi

# ---------------------------------------------------------------- completion
"$FERRY" completion bash >"$work/ferry.bash"
complete_words() { # the candidates bash offers for the words given (the last is being typed)
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ferry; printf "%s\n" "${COMPREPLY[@]}"' _ "$work/ferry.bash" "$@"
}
check_completion() { # DESC WANT WORDS...
	desc=$1 want=$2
	shift 2
	if complete_words "$@" | grep -qx -- "$want"; then ok "completion: $desc"; else
		fail "completion: $desc (no $want among: $(complete_words "$@" | tr '\n' ' '))"
	fi
}
check_completion "command names" check ferry ch
check_completion "a command after -C DIR" findings ferry -C /tmp fin
check_completion "a command's options" --fail-on ferry check --f
check_completion "phases after --phase" infer-convert ferry check --phase inf
check_completion "a choice's values" sarif ferry check --format s
check_completion "setting keys" tolerance.loss ferry config tol
check_completion "artifact kinds" loss-log ferry ingest lo
check_completion "compare kinds" dump ferry compare d
if complete_words ferry check --phase x | grep -q .; then fail "completion offers phases that do not match"; else ok "completion offers nothing that does not match"; fi
expect_exit 0 "zsh completion is written" -- "$FERRY" completion zsh
expect_grep "^#compdef ferry" "$work/out" "zsh completion starts with #compdef"
if command -v zsh >/dev/null 2>&1; then
	zsh -n "$work/out" && ok "zsh parses the completion" || fail "zsh cannot parse the completion"
fi
bash -n "$work/ferry.bash" && ok "bash parses the completion" || fail "bash cannot parse the completion"
expect_exit 2 "completion for another shell is refused" -- "$FERRY" completion fish

# ---------------------------------------------------------------- the pager
if command -v tmux >/dev/null 2>&1; then
	sock="ferry-commands-$$"
	printf 'y = 2\n' >>"$work/p/train.py" # a manual edit: diff baseline has something to show
	for c in log findings "diff baseline"; do
		rm -f "$work/paged" "$work/done"
		tmux -L "$sock" new-session -d -x 120 -y 30 \
			"unset FERRY_PAGER; PAGER='cat > $work/paged' '$FERRY' -C '$work/p' $c; touch '$work/done'"
		i=0
		while [ ! -f "$work/done" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		tmux -L "$sock" kill-server 2>/dev/null
		[ -s "$work/paged" ] && ok "on a terminal, $c goes through \$PAGER" || fail "$c did not go through the pager"
	done
	PAGER="cat > $work/piped" "$FERRY" -C "$work/p" log | cat >/dev/null
	[ ! -e "$work/piped" ] && ok "off a terminal there is no pager" || fail "a pager ran off a terminal"
fi

# ---------------------------------------------------------------- make install
if [ -f "$top/Makefile" ] && command -v make >/dev/null 2>&1; then
	stage="$work/stage"
	rel=${FERRY#"$top"/}
	if make -s -C "$top" install DESTDIR="$stage" PREFIX=/usr FERRY_BIN="$rel" BUILD="${FERRY_BUILD:-build}" >"$work/install.log" 2>&1; then
		ok "make install DESTDIR=… PREFIX=/usr"
	else
		fail "make install: $(tail -3 "$work/install.log")"
	fi
	inst="$stage/usr/bin/ferry"
	[ -x "$inst" ] && [ -f "$stage/usr/share/man/man1/ferry.1" ] && [ -f "$stage/usr/share/ferry/plugins/assess/amp.lua" ] &&
		[ -f "$stage/usr/share/bash-completion/completions/ferry" ] && [ -f "$stage/usr/share/zsh/vendor-completions/_ferry" ] &&
		ok "binary, manual page, plugins and completions are installed" || fail "installed files missing"
	cp -R "$top/examples/resnet-ddp" "$work/example"
	(cd "$work" && env -u FERRY_PLUGIN_SOURCE "$inst" init "$work/example" >/dev/null 2>&1)
	env -u FERRY_PLUGIN_SOURCE "$inst" -C "$work/example" check --phase assess --format json >"$work/inst.json" 2>"$work/err"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["findings"] and not d["plugin_errors"]' "$work/inst.json" &&
		ok "the installed ferry checks the example" || fail "installed ferry on the example: $(head -2 "$work/err")"
	# it reads the installed plugins, relative to its own location
	rm "$stage/usr/share/ferry/plugins/assess/amp.lua"
	env -u FERRY_PLUGIN_SOURCE "$inst" -C "$work/example" plugins >"$work/pl" 2>&1
	if grep -q "^assess.device_calls" "$work/pl" && ! grep -q "^assess.amp " "$work/pl"; then
		ok "the installed ferry reads its plugins from <prefix>/share/ferry"
	else
		fail "installed plugins are not the ones read"
	fi
	make -s -C "$top" uninstall DESTDIR="$stage" PREFIX=/usr >/dev/null 2>&1
	left=$(find "$stage" -type f | head -3)
	[ -z "$left" ] && ok "make uninstall removes every installed file" || fail "left after uninstall: $left"
fi

finish

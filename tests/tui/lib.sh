# Helpers of the workbench's end-to-end tests (sourced): a private tmux server
# (tmux -L, -f /dev/null), a scratch folder $work removed on exit, and polling
# checks that wait for text on a pane instead of sleeping. Expects $top and $FERRY.
# The CLI calls the tests make read English (their sessions choose their own language).
export FERRY_LANG=en
work=$(mktemp -d "${TMPDIR:-/tmp}/ferry-tui-XXXXXX")
sock="ferrytest-$$"
tm() { tmux -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server >/dev/null 2>&1; rm -rf "$work"' EXIT
fails=0
ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

scale=${FERRY_TUI_TIMEOUT:-1}

# poll SECONDS CMD...: 0 as soon as CMD succeeds, 1 when SECONDS (times the scale)
# pass without it succeeding.
poll() {
	limit=$(( $1 * scale * 10 ))
	shift
	i=0
	while [ "$i" -lt "$limit" ]; do
		if "$@"; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

shows() { tm capture-pane -p -t "$1" 2>/dev/null | grep -F -q -- "$2"; }
lacks() { tm has-session -t "$1" 2>/dev/null && ! shows "$1" "$2"; }
alt_is() { [ "$(tm display-message -p -t "$1" '#{alternate_on}' 2>/dev/null)" = "$2" ]; }

# settled SESSION: 0 when the pane shows the same screen twice, half a second apart.
settled() {
	before=$(tm capture-pane -p -t "$1" 2>/dev/null)
	sleep 0.5
	[ "$before" = "$(tm capture-pane -p -t "$1" 2>/dev/null)" ]
}

# wait_for SESSION TEXT [SECONDS]: 0 when TEXT appears on the pane in time.
wait_for() { poll "${3:-10}" shows "$1" "$2"; }

# keys SESSION KEY...: sends keys (tmux key names or literal text). They queue in
# the terminal while the workbench is busy; every check after them polls.
keys() {
	s=$1
	shift
	tm send-keys -t "$s" "$@"
}

# expect SESSION TEXT DESC [SECONDS]
expect() {
	if wait_for "$1" "$2" "${4:-10}"; then
		ok "$3"
	else
		fail "$3: \"$2\" did not appear; the screen was:"
		tm capture-pane -p -t "$1" 2>/dev/null | grep -v '^$' | sed 's/^/     | /'
	fi
}


# launcher PROJECT: writes $work/launch.sh NAME, which runs ferry on PROJECT in the
# pane's terminal, records its pid, then prints its exit status and stays so the
# pane can be inspected.
launcher() {
cat >"$work/launch.sh" <<SH
#!/bin/sh
export FERRY_ACTOR='TUI Tester <tui@example.org>' LANG=C.UTF-8 LC_ALL=C.UTF-8
"$FERRY" "$1" </dev/tty &
echo \$! >"$work/\$1.pid"
wait \$!
echo FERRY-EXIT=\$?
sleep 60
SH
}

# start SESSION LANG COLS ROWS [VAR=VALUE...]
start() {
	name=$1 lang=$2 cols=$3 rows=$4
	shift 4
	tm new-session -d -s "$name" -x "$cols" -y "$rows" env FERRY_LANG="$lang" "$@" sh "$work/launch.sh" "$name"
}


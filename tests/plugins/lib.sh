# Shared by the phase test runners (sourced after they set $ferry and $tmp): the check
# that ferry is built, pass/fail counting, and building an engagement from a fixture folder.
#
# A fixture folder holds project/ (copied), and optionally: config ("KEY VALUE" lines set
# with `ferry config`), raw-config (the same, written straight into the database: values
# `ferry config` would refuse, as an engagement recorded before values were checked may
# hold), probe.json (ingested as env-probe), bench.json (ingested as bench, label gpu) and
# artifacts/ (files named KIND.LABEL.EXT, ingested in name order).

if [ ! -x "$ferry" ]; then
	echo "FAIL $ferry is not built (run make)"
	exit 1
fi

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { # name, command...: ok when the command succeeds
	name=$1
	shift
	if "$@"; then ok "$name"; else bad "$name"; fi
}

# engagement FIXTURE WORK: a fresh engagement in WORK from FIXTURE's project, settings and
# artifacts; prints what failed and returns 1 when any step did.
engagement() {
	fx=$1
	work=$2
	rm -rf "$work"
	cp -R "$fx/project" "$work"
	{
		"$ferry" init "$work" --client test >/dev/null 2>&1 || echo "init failed"
		if [ -f "$fx/config" ]; then
			while read -r key value; do
				[ -n "$key" ] && { "$ferry" -C "$work" config "$key" "$value" || echo "config $key failed"; }
			done <"$fx/config"
		fi
		if [ -f "$fx/raw-config" ]; then
			while read -r key value; do
				[ -n "$key" ] && sqlite3 "$work/.ferry/engagement.db" \
					"INSERT OR REPLACE INTO config (key, value) VALUES ('$key', '$value')" || echo "raw-config $key failed"
			done <"$fx/raw-config"
		fi
		if [ -f "$fx/probe.json" ]; then
			"$ferry" -C "$work" ingest env-probe "$fx/probe.json" >/dev/null || echo "ingest probe failed"
		fi
		if [ -f "$fx/bench.json" ]; then
			"$ferry" -C "$work" ingest bench "$fx/bench.json" --label gpu >/dev/null || echo "ingest bench failed"
		fi
		if [ -d "$fx/artifacts" ]; then
			for f in "$fx"/artifacts/*; do
				[ -f "$f" ] || continue
				base=$(basename "$f")
				kind=${base%%.*}
				rest=${base#*.}
				"$ferry" -C "$work" ingest "$kind" "$f" --label "${rest%%.*}" >/dev/null || echo "ingest $base failed"
			done
		fi
	} >"$tmp/setup.log" 2>&1
	[ ! -s "$tmp/setup.log" ] || { cat "$tmp/setup.log"; return 1; }
}

# zh_check NAME DIR...: ok when, read with FERRY_LANG=zh, every message and suggestion of
# the findings of each engagement DIR is Chinese (tests/zh_check.py: no run of three plain
# English words left, fact-table prose included).
zh_check() {
	zh_name=$1
	shift
	rm -f "$tmp"/zh.*.json "$tmp/zh.log"
	zh_i=0
	for zh_dir in "$@"; do
		zh_i=$((zh_i + 1))
		FERRY_LANG=zh "$ferry" -C "$zh_dir" findings --format json >"$tmp/zh.$zh_i.json" 2>>"$tmp/zh.log" ||
			echo "$zh_dir: ferry findings failed" >>"$tmp/zh.log"
	done
	if [ "$zh_i" -gt 0 ] && [ ! -s "$tmp/zh.log" ] && python3 tests/zh_check.py findings "$tmp"/zh.*.json >"$tmp/zh_check.log"; then
		ok "$zh_name ($zh_i engagements)"
	else
		cat "$tmp/zh.log" "$tmp/zh_check.log" 2>/dev/null | head -20
		bad "$zh_name"
	fi
}

#!/bin/sh
# The adapt phase on real code: for each repository of repos.txt found in REALCODE_DIR
# (the same layout as run.sh), a copy is committed, `ferry check --phase adapt` and
# `ferry fix --all --phase adapt --yes` run on it, and every changed .py file that compiled
# before (python3's compile()) must still compile. Prints one line per repository and one
# per broken file; exits 1 when an edit broke a file, 2 on usage, 3 when ferry failed.
#   REALCODE_DIR=DIR sh tests/realcode/adapt.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
ferry=${FERRY:-$here/../../ferry}
[ -n "${REALCODE_DIR:-}" ] || { echo "adapt: REALCODE_DIR is not set; skipped"; exit 0; }
[ -x "$ferry" ] || { echo "adapt: $ferry is not built" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-adapt-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
compiles() { python3 -c 'import sys; compile(open(sys.argv[1], "rb").read(), sys.argv[1], "exec")' "$1" 2>/dev/null; }
broken=0
while read -r name _url _commit; do
	case "$name" in "#"* | "") continue ;; esac
	dir="$REALCODE_DIR/$name"
	[ -d "$dir" ] || { echo "adapt: $name: not in $REALCODE_DIR; skipped"; continue; }
	w="$tmp/$name"
	mkdir -p "$w"
	(cd "$dir" && tar cf - --exclude=.git --exclude=.ferry .) | (cd "$w" && tar xf -)
	git -C "$w" init -q && git -C "$w" add -A &&
		git -C "$w" -c user.name=realcode -c user.email=realcode@localhost commit -qm base ||
		{ echo "adapt: $name: cannot commit the copy"; exit 3; }
	"$ferry" init "$w" --client realcode >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 3; }
	"$ferry" -C "$w" check --phase adapt >/dev/null 2>"$tmp/log"
	rc=$?
	[ $rc -le 1 ] || { echo "adapt: $name: check exited $rc"; cat "$tmp/log"; exit 3; }
	"$ferry" -C "$w" fix --all --phase adapt --yes >"$tmp/log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { echo "adapt: $name: fix exited $rc"; tail -5 "$tmp/log"; exit 3; }
	n=0
	bad=0
	for f in $(git -C "$w" diff --name-only -- '*.py'); do
		n=$((n + 1))
		git -C "$w" show "HEAD:$f" >"$tmp/before.py" 2>/dev/null || continue
		compiles "$tmp/before.py" || continue
		if ! compiles "$w/$f"; then
			echo "  $name: $f no longer compiles"
			bad=$((bad + 1))
		fi
	done
	echo "adapt: $name: $n files changed, $bad broken"
	broken=$((broken + bad))
	rm -rf "$w"
done <"$here/repos.txt"
[ $broken -eq 0 ]

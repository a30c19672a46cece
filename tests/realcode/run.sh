#!/bin/sh
# Precision and recall of the assess phase on real repositories, against labels.tsv.
#
# usage: REALCODE_DIR=DIR sh tests/realcode/run.sh [--layout]
#
# DIR/<name> holds each repository of repos.txt at its pinned commit. With --layout, a
# missing one is cloned there and checked out at the commit (needs the network). A
# repository that is absent is skipped with a note; a git checkout at another commit is
# skipped too. Each present repository is copied to a temporary folder, `ferry init`ed
# and surveyed with `ferry check --phase assess --format json`; every labelled finding
# is looked up by (plugin, file, line, key). Prints, per repository and in total: the
# labelled findings still reported, how many of them are real (precision), and the real
# ones no longer reported (recall). Exits 1 when a real finding is lost, 2 on usage.
# Not part of `make test`: it needs the repositories (`make realcode`).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ferry=${FERRY:-$root/ferry}
layout=0
[ "${1:-}" = "--layout" ] && layout=1
if [ -z "${REALCODE_DIR:-}" ]; then
	echo "realcode: REALCODE_DIR is not set; skipped (see tests/realcode/run.sh)"
	exit 0
fi
[ -x "$ferry" ] || { echo "realcode: $ferry is not built (run make)"; exit 2; }
export FERRY_ACTOR="realcode <tests@example.invalid>"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-realcode.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

present=""
while read -r name url commit; do
	case "$name" in '#'* | '') continue ;; esac
	dir="$REALCODE_DIR/$name"
	if [ ! -d "$dir" ] && [ $layout -eq 1 ]; then
		git clone -q "$url" "$dir" && git -C "$dir" checkout -q "$commit" ||
			{ echo "realcode: $name: could not clone $url at $commit"; rm -rf "$dir"; }
	fi
	if [ ! -d "$dir" ]; then
		echo "realcode: $name: not in $REALCODE_DIR; skipped"
		continue
	fi
	if [ -e "$dir/.git" ]; then
		head=$(git -C "$dir" rev-parse HEAD 2>/dev/null)
		if [ "$head" != "$commit" ]; then
			echo "realcode: $name: checkout is at ${head:-?}, not the pinned $commit; skipped"
			continue
		fi
	else
		echo "realcode: $name: not a git checkout; taken to be the pinned $commit"
	fi
	work="$tmp/$name"
	mkdir -p "$work"
	(cd "$dir" && tar cf - --exclude=.git --exclude=.ferry .) | (cd "$work" && tar xf -)
	if ! "$ferry" init "$work" --client realcode >"$tmp/init.log" 2>&1; then
		cat "$tmp/init.log"
		exit 3
	fi
	"$ferry" -C "$work" check --phase assess --format json >"$tmp/$name.json" 2>"$tmp/check.log"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
		cat "$tmp/check.log"
		exit 3
	fi
	present="$present $name"
done <"$here/repos.txt"

[ -n "$present" ] || { echo "realcode: no repository present; nothing measured"; exit 0; }
python3 - "$here/labels.tsv" "$tmp" $present <<'PY'
import collections, json, re, sys

labels_path, tmp, names = sys.argv[1], sys.argv[2], sys.argv[3:]

def key(message):
    m = re.search(r"`([^`]*)`", message)
    return (m.group(1) if m else message[:40]).replace("\t", " ").replace("\n", " ")[:60]

# a label's key may add "|TEXT": the finding's message must also hold TEXT (two findings
# at one place with the same quoted name, such as a guarded and a plain import)
labels = collections.defaultdict(list)
for line in open(labels_path, encoding="utf-8"):
    if line.startswith("#") or not line.strip():
        continue
    repo, plugin, path, lineno, k, verdict = line.rstrip("\n").split("\t")[:6]
    k, _, text = k.partition("|")
    labels[repo].append(((plugin, path, int(lineno), k), text, verdict))

tot = collections.Counter()
print("%-22s %8s %9s %6s %10s %10s" % ("repository", "findings", "labelled", "real", "precision", "real lost"))
for name in names:
    found = json.load(open("%s/%s.json" % (tmp, name), encoding="utf-8"))["findings"]
    have = collections.defaultdict(list)
    for f in found:
        # a site said to be host-side and not affected claims no problem: not a finding here
        if f.get("category") == "host_side":
            continue
        have[(f["plugin"], f.get("file") or "", int(f.get("line") or 0), key(f["message"]))].append(f["message"])
    c = collections.Counter()
    for k, text, verdict in labels[name]:
        hit = next((i for i, m in enumerate(have[k]) if text in m), None)
        if hit is not None:
            del have[k][hit]
            c["kept"] += 1
            c["kept_real"] += verdict == "real"
            if verdict != "real":
                print("  judged false, still reported: %s %s %s:%d %s" % (name, k[0], k[1], k[2], k[3]))
        elif verdict == "real":
            c["lost"] += 1
            print("  lost real finding: %s %s %s:%d %s" % (name, k[0], k[1], k[2], k[3]))
        c["real"] += verdict == "real"
    tot.update(c)
    prec = 100.0 * c["kept_real"] / c["kept"] if c["kept"] else 0.0
    print("%-22s %8d %9d %6d %9.1f%% %10d" % (name, len(found), c["kept"], c["kept_real"], prec, c["lost"]))
prec = 100.0 * tot["kept_real"] / tot["kept"] if tot["kept"] else 0.0
rec = 100.0 * (tot["real"] - tot["lost"]) / tot["real"] if tot["real"] else 0.0
print("%-22s %8s %9d %6d %9.1f%% %10d" % ("total", "", tot["kept"], tot["kept_real"], prec, tot["lost"]))
print("recall of the real labelled findings: %.1f%% (%d of %d)" % (rec, tot["real"] - tot["lost"], tot["real"]))
sys.exit(1 if tot["lost"] else 0)
PY

#!/bin/sh
# A whole msprobe dump (the step/rank folder with dump.json and dump_tensor_data/*.pt) is
# one artifact: its files are stored once by content (the GPU and NPU dumps share what is
# identical, a second ingest copies nothing), compare dump works on the labels, and a
# folder holding anything but a dump, or a link, is refused with nothing stored. A single
# .pt tensor file is an artifact too, read by ptfile before it is accepted.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
fx=$top/tests/fixtures/dump

p="$work/p"
make_project "$p"
"$FERRY" init "$p" >/dev/null
expect_exit 0 "a GPU dump folder is ingested" -- "$FERRY" -C "$p" ingest dump "$fx/gpu_dump" --label gpu
expect_exit 0 "an NPU dump folder is ingested" -- "$FERRY" -C "$p" ingest dump "$fx/npu_dump" --label npu
files=$(find "$fx/gpu_dump" "$fx/npu_dump" -type f | wc -l)
distinct=$(find "$fx/gpu_dump" "$fx/npu_dump" -type f -exec sha256sum {} + | cut -c1-64 | sort -u | wc -l)
objects=$(ls "$p/.ferry/artifacts/objects" | wc -l)
[ "$objects" -eq "$distinct" ] && ok "$files files stored as $distinct objects (identical tensors once)" ||
	fail "$objects objects for $distinct distinct of $files files"
"$FERRY" -C "$p" ingest dump "$fx/gpu_dump" --label gpu2 >/dev/null 2>&1
[ "$(ls "$p/.ferry/artifacts/objects" | wc -l)" -eq "$distinct" ] && ok "ingesting the same dump again stores no new object" ||
	fail "a second ingest added objects"
sqlite3 "$p/.ferry/engagement.db" "SELECT sha256 FROM artifacts WHERE label = 'gpu'" >"$work/sha"
python3 - "$work/sha" "$fx/gpu_dump" <<'PY' && ok "the artifact's hash is that of its sorted sha256sum manifest" || fail "artifact hash"
import hashlib, json, os, sys
root = sys.argv[2]
lines = []
for d, _, fs in os.walk(root):
    for f in fs:
        path = os.path.join(d, f)
        lines.append((os.path.relpath(path, root), hashlib.sha256(open(path, "rb").read()).hexdigest()))
manifest = "".join(f"{h}  {r}\n" for r, h in sorted(lines))
want = hashlib.sha256(manifest.encode()).hexdigest()
got = open(sys.argv[1]).read().strip()
assert got == want, (got, want)
PY
expect_exit 1 "compare dump by label reads the stored tensors and finds the perturbed layer" -- \
	"$FERRY" -C "$p" compare dump gpu npu
expect_grep "20 compared from tensor data" "$work/out" "every pair is compared from tensor data, not statistics"
expect_grep "first diverging layer: Functional.linear.0.forward" "$work/out" "the first diverging layer"
grep "^  A  " "$work/out" | sed 's/^  A  [^ ]*//' >"$work/stored"
"$FERRY" -C "$p" compare dump "$fx/gpu_dump" "$fx/npu_dump" 2>/dev/null | grep "^  A  " | sed 's/^  A  [^ ]*//' >"$work/orig"
[ -s "$work/stored" ] && cmp -s "$work/stored" "$work/orig" && ok "the stored dump's hashes (taken at ingest, not read again) equal the original's" ||
	fail "stored $(cat "$work/stored") vs original $(cat "$work/orig")"
expect_exit 0 "the same dump against itself passes" -- "$FERRY" -C "$p" compare dump gpu gpu2

# single .pt files
expect_exit 0 "a state_dict .pt is ingested" -- "$FERRY" -C "$p" ingest dump "$fx/gpu_state.pt" --label gs
expect_exit 0 "its NPU twin too" -- "$FERRY" -C "$p" ingest dump "$fx/npu_state.pt" --label ns
expect_exit 1 "compare dump by label on .pt artifacts" -- "$FERRY" -C "$p" compare dump gs ns
printf 'PK\003\004not really a zip' >"$work/bad.pt"
n0=$(ls "$p/.ferry/artifacts/dump" | wc -l)
expect_exit 3 "a .pt that is no torch.save archive is refused" -- "$FERRY" -C "$p" ingest dump "$work/bad.pt"
one_line "$work/err" "one line"
expect_grep "bad.pt" "$work/err" "naming the file"

# bad folders: nothing stored
cp -R "$fx/gpu_dump" "$work/stray"
echo "notes" >"$work/stray/step0/rank0/notes.txt"
expect_exit 3 "a file that is not part of a dump is refused" -- "$FERRY" -C "$p" ingest dump "$work/stray"
expect_grep "notes.txt: not part of a dump" "$work/err" "naming the file"
cp -R "$fx/gpu_dump" "$work/linked"
ln -s /etc/passwd "$work/linked/step0/rank0/dump_tensor_data/x.pt"
expect_exit 3 "a link inside a dump is not followed" -- "$FERRY" -C "$p" ingest dump "$work/linked"
expect_grep "x.pt: a link or special file" "$work/err" "naming the link"
mkdir -p "$work/empty/sub"
expect_exit 3 "a folder without any dump file is refused" -- "$FERRY" -C "$p" ingest dump "$work/empty"
[ "$(ls "$p/.ferry/artifacts/dump" | wc -l)" -eq "$n0" ] && ok "nothing was stored for the refused inputs" ||
	fail "refused inputs left files in artifacts/dump"
[ "$(sqlite3 "$p/.ferry/engagement.db" "SELECT count(*) FROM artifacts")" -eq 5 ] &&
	ok "only the five good artifacts are recorded" || fail "artifact rows after refusals"
expect_exit 0 "the audit chain verifies" -- "$FERRY" -C "$p" verify

# A dump is read at ingest as compare reads it: a truncated .npy, a .pt cut in half inside
# an msprobe folder, a dump.json cut in half are refused with one line, and nothing is stored
cut() { head -c $(($(stat -c %s "$1") / 2)) "$1" >"$1.cut" && mv "$1.cut" "$1"; }
t="$work/cuts"
mkdir -p "$t"
cp "$fx/gpu_state.pt" "$t/whole.pt"
python3 - "$t/a.npy" "$top/tests/tools" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
from npyfile import save
save(sys.argv[1], [i * 0.5 for i in range(4096)])
EOF
cut "$t/a.npy"
cp -R "$fx/npu_dump" "$t/pt_cut"
cut "$(ls "$t"/pt_cut/step0/rank0/dump_tensor_data/*.pt | head -1)"
cp -R "$fx/npu_dump" "$t/json_cut"
cut "$t/json_cut/step0/rank0/dump.json"
q="$work/cutproj"
make_project "$q"
"$FERRY" init "$q" >/dev/null
before=$(find "$q/.ferry/artifacts" 2>/dev/null | wc -l)
for d in a.npy pt_cut json_cut; do
	expect_exit 3 "ingest dump refuses $d" -- "$FERRY" -C "$q" ingest dump "$t/$d"
	one_line "$work/err" "$d: one line"
	case $d in a.npy) expect_grep "truncated .npy: the header promises" "$work/err" "a.npy: says it is truncated" ;; esac
done
after=$(find "$q/.ferry/artifacts" 2>/dev/null | wc -l)
[ "$before" = "$after" ] && ok "nothing was stored" || fail "artifacts stored: $before -> $after"
expect_exit 0 "the whole dump is still taken" -- "$FERRY" -C "$q" ingest dump "$fx/npu_dump"
expect_exit 0 "verify: the record is intact" -- "$FERRY" -C "$q" verify

finish

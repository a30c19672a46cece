#!/bin/sh
# verify against an attacker with write access to .ferry/: an engagement that went through
# every normal command verifies; deleting the newest events, editing an event and
# recomputing the chain after it, and editing the findings, waivers, sign-offs,
# checkpoints and artifacts tables without touching the audit table are each reported
# (exit 1, naming table, row and field); anchors from reports and exports catch a
# truncated or rewritten chain; signatures name their signer; --format json.
. "$(dirname "$0")/lib.sh"

p="$work/proj"
make_project "$p"
printf 'import torch\n\nmodel = torch.nn.Linear(4, 2).cuda()\ntorch.cuda.synchronize()\n' >"$p/train.py"
"$FERRY" init "$p" >/dev/null
"$FERRY" -C "$p" check >/dev/null
"$FERRY" -C "$p" check --phase adapt >/dev/null
# a finding the loss log ingested below does not settle (assess.gpu_baseline's would be
# closed by it, as the checks judging the new evidence run at once)
waive_id=$("$FERRY" -C "$p" findings --phase assess --format json |
	python3 -c "import json,sys; print([f['id'] for f in json.load(sys.stdin)['findings'] if f['status']=='open' and f['plugin']!='assess.gpu_baseline'][0])")
expect_exit 0 "waive" -- "$FERRY" -C "$p" waive "$waive_id" --reason "client keeps this on purpose"
expect_exit 0 "fix the adapt findings" -- "$FERRY" -C "$p" fix --phase adapt --all --yes
expect_exit 0 "revert the first fix" -- "$FERRY" -C "$p" revert 2
printf 'step 1 loss 2.31\nstep 2 loss 1.90\n' >"$work/gpu.log"
expect_exit 0 "ingest a loss log" -- "$FERRY" -C "$p" ingest loss-log "$work/gpu.log" --label gpu
echo "extra = 1" >>"$p/train.py"
expect_exit 0 "a report (records the manual edit first)" -- "$FERRY" -C "$p" report --format json --output "$work/r1.json"
expect_exit 0 "config" -- "$FERRY" -C "$p" config tolerance.loss 0.01
"$FERRY" -C "$p" findings --phase assess --status open --format json |
	python3 -c "import json,sys; [print(f['id']) for f in json.load(sys.stdin)['findings'] if f['severity']=='error']" |
	while read -r id; do "$FERRY" -C "$p" waive "$id" --reason "tracked separately" >/dev/null; done
expect_exit 0 "sign off assess" -- "$FERRY" -C "$p" signoff assess --note "assessment accepted"
expect_exit 0 "export patches" -- "$FERRY" -C "$p" export patches "$work/patches"
expect_grep "^Audit-Anchor: [0-9a-f]\{64\}:[0-9]*$" "$work/patches/AUDIT-ANCHOR" "exported patches carry the anchor HASH:N"
expect_exit 0 "a markdown report" -- "$FERRY" -C "$p" report --format md --output "$work/r2.md"
expect_grep "ferry verify --head [0-9a-f]\{64\}:[0-9]*" "$work/r2.md" "the markdown report prints the anchor HASH:N"

expect_exit 0 "an engagement through every normal command verifies" -- "$FERRY" -C "$p" verify
expect_grep "^ok: " "$work/out" "verify says ok"
anchor=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['audit']['anchor'])" "$work/r1.json")
expect_exit 0 "the anchor of the first report holds" -- "$FERRY" -C "$p" verify --head "$anchor"
expect_exit 0 "verify --format json" -- "$FERRY" -C "$p" verify --format json
python3 - "$work/out" <<'PY' && ok "json: ok, events, head, problems, signatures" || fail "verify json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is True and d["problems"] == [] and d["signatures"] == [], d
assert d["events"] > 15 and len(d["head"]) == 64, d
PY
db_events() { sqlite3 "$1/.ferry/engagement.db" "SELECT count(*) FROM audit"; }

# tamper DESC SQL: a copy of the engagement changed with sqlite3 as an attacker would
# (dropping the append-only triggers), then verify must exit 1; output in $work/out.
tamper() {
	desc=$1
	t="$work/t$(date +%s%N)"
	cp -r "$p" "$t"
	sqlite3 "$t/.ferry/engagement.db" "DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete; $2" ||
		fail "$desc: sqlite3"
	expect_exit 1 "$desc: verify exits 1" -- "$FERRY" -C "$t" verify
	one_line "$work/err" "$desc: one line on stderr"
	tdir=$t
}

# the tables, changed without touching the audit table
tamper "finding status" "UPDATE findings SET status = 'fixed' WHERE id = $waive_id"
expect_grep "^findings $waive_id: status is \"fixed\" in the table but \"waived\" in the audit chain" "$work/out" \
	"finding status: named with table, row, field, both values"
tamper "waiver reason and actor" "UPDATE waivers SET reason = 'approved by the client', actor = 'Client CTO' WHERE id = 1"
expect_grep "^waivers 1: reason is \"approved by the client\" in the table but \"client keeps this on purpose\"" "$work/out" \
	"waiver reason named"
expect_grep "^waivers 1: actor is \"Client CTO\"" "$work/out" "waiver actor named"
tamper "a forged waiver" "INSERT INTO waivers (finding_id, reason, actor, created_at) VALUES (1, 'x', 'y', 'z')"
expect_grep "^waivers [0-9]*: the row is not recorded in the audit chain" "$work/out" "forged waiver named"
tamper "sign-off" "UPDATE phases SET note = 'all clear', signed_off_by = 'Someone Else' WHERE name = 'assess'"
expect_grep "^signoffs assess: signed_off_by is \"Someone Else\"" "$work/out" "sign-off actor named"
expect_grep "^signoffs assess: note is \"all clear\"" "$work/out" "sign-off note named"
tamper "a forged sign-off" "UPDATE phases SET signed_off_at = '2026-01-01', signed_off_by = 'x', note = '' WHERE name = 'design'"
expect_grep "^signoffs design: the row is not recorded" "$work/out" "forged sign-off named"
tamper "checkpoint message" "UPDATE checkpoints SET message = 'harmless tidy-up' WHERE id = 2"
expect_grep "^checkpoints [0-9a-f]\{40\}: message is \"harmless tidy-up\"" "$work/out" "checkpoint message named"
tamper "artifact hash" "UPDATE artifacts SET sha256 = '$(printf '0%.0s' $(seq 64))' WHERE id = 1"
expect_grep "^artifacts 1: sha256 is \"0000" "$work/out" "artifact hash named"
tamper "a deleted artifact row" "DELETE FROM artifacts WHERE id = 1"
expect_grep "^artifacts 1: the audit chain records this row but the table does not have it" "$work/out" "missing artifact named"

# the chain: the newest events deleted, with and without the rows they recorded
nev=$(db_events "$p")
tamper "newest events deleted" "DELETE FROM audit WHERE seq > $((nev - 3))"
expect_grep "not recorded in the audit chain" "$work/out" "truncation: rows the deleted events recorded are named"
# the last three: the sign-off, the export and the report; the sign-off undone too
tdir="$work/clean-truncation"
cp -r "$p" "$tdir"
sqlite3 "$tdir/.ferry/engagement.db" "DROP TRIGGER audit_no_delete; DELETE FROM audit WHERE seq > $((nev - 3));
	UPDATE phases SET signed_off_at = NULL, signed_off_by = NULL, note = NULL WHERE name = 'assess'"
expect_exit 0 "a clean truncation is invisible without an anchor (the threat model says so)" -- "$FERRY" -C "$tdir" verify
export_anchor=$(sed -n 's/^Audit-Anchor: //p' "$work/patches/AUDIT-ANCHOR")
expect_exit 1 "the export's anchor catches it" -- "$FERRY" -C "$tdir" verify --head "$export_anchor"
expect_grep "event $((nev - 2)) is missing; the chain ends at event $((nev - 3)) (truncated)" "$work/out" "truncation against the anchor named"
tamper "a checkpoint event and everything after it deleted" \
	"DELETE FROM audit WHERE seq >= (SELECT max(seq) FROM audit WHERE payload LIKE '%\"kind\":\"checkpoint\"%');
	 DELETE FROM checkpoints WHERE id = (SELECT max(id) FROM checkpoints)"
expect_grep "^history commit [0-9a-f]\{12\} is not recorded by any audit event" "$work/out" \
	"truncation: the history commit left without its event is named"

# the chain: an event edited and every hash after it recomputed
recompute() {
	python3 - "$1/.ferry/engagement.db" "$2" "$3" "$4" <<'PY'
import hashlib, sqlite3, sys
db, seq, old, new = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
c = sqlite3.connect(db)
c.execute("DROP TRIGGER IF EXISTS audit_no_update")
rows = c.execute("SELECT seq, prev_hash, payload FROM audit ORDER BY seq").fetchall()
prev = "0" * 64
for s, _, payload in rows:
    if s == seq:
        assert old in payload, payload
        payload = payload.replace(old, new)
    h = hashlib.sha256((prev + "\n" + payload).encode()).hexdigest()
    c.execute("UPDATE audit SET prev_hash = ?, payload = ?, hash = ? WHERE seq = ?", (prev, payload, h, s))
    prev = h
c.commit()
PY
}
wseq=$(sqlite3 "$p/.ferry/engagement.db" "SELECT min(seq) FROM audit WHERE payload LIKE '%\"kind\":\"waive\"%'")
t="$work/recomputed"
cp -r "$p" "$t"
recompute "$t" "$wseq" "client keeps this on purpose" "approved by the client" &&
	sqlite3 "$t/.ferry/engagement.db" "UPDATE waivers SET reason = 'approved by the client' WHERE id = 1"
expect_exit 1 "an edited event with the chain recomputed after it" -- "$FERRY" -C "$t" verify
expect_grep "^history commit [0-9a-f]\{12\} carries audit head [0-9a-f]\{16\} which the chain no longer holds" "$work/out" \
	"recomputation: a later checkpoint commit's Audit trailer no longer matches"
expect_exit 1 "the first report's anchor catches the recomputation" -- "$FERRY" -C "$t" verify --head "$anchor"
expect_grep "now has hash" "$work/out" "recomputation against the anchor named"
expect_exit 1 "verify --format json on a tampered record" -- "$FERRY" -C "$t" verify --format json
python3 - "$work/out" <<'PY' && ok "json: ok false, problems with kind, table, id, field, detail" || fail "verify json problems"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is False and d["problems"], d
for p in d["problems"]:
    assert set(p) == {"kind", "table", "id", "field", "detail"}, p
assert any(p["kind"] == "anchor" and p["table"] == "history" for p in d["problems"]), d["problems"]
PY
expect_exit 2 "an unknown option is a usage error" -- "$FERRY" -C "$p" verify --bogus
# an anchor that is not HASH or HASH:N is bad input (2), not a broken chain: one line
for bad in nothex "$(echo "$anchor" | cut -d: -f1):0" "$(echo "$anchor" | cut -c1-8)" zzz; do
	expect_exit 2 "an anchor that is not HASH or HASH:N ($bad) is bad input" -- "$FERRY" -C "$p" verify --head "$bad"
	one_line "$work/err" "--head $bad: one line on stderr"
	[ -s "$work/out" ] && fail "--head $bad: verify printed a report: $(head -1 "$work/out")" ||
		ok "--head $bad: nothing verified, nothing on stdout"
done
expect_grep "^ferry: --head zzz: not an anchor HASH or HASH:N" "$work/err" "the line names the option and the value"
expect_exit 1 "an anchor beyond the chain" -- "$FERRY" -C "$p" verify --head "$(echo "$anchor" | cut -d: -f1):9999"

# signing: an ed25519 PEM key and an OpenSSH key, both generated now
s="$work/signed"
make_project "$s"
"$FERRY" init "$s" >/dev/null
openssl genpkey -algorithm ed25519 -out "$work/audit.pem" 2>/dev/null
expect_exit 0 "config audit.sign_key (ed25519 PEM)" -- "$FERRY" -C "$s" config audit.sign_key "$work/audit.pem"
expect_exit 0 "a sign-off signs the head" -- "$FERRY" -C "$s" signoff assess
pub=$(openssl pkey -in "$work/audit.pem" -pubout -outform DER | tail -c 32 | od -An -tx1 | tr -d ' \n')
ssh-keygen -q -t ed25519 -N '' -C auditor@example.org -f "$work/audit_ssh" >/dev/null
expect_exit 0 "config audit.sign_key (OpenSSH)" -- "$FERRY" -C "$s" config audit.sign_key "$work/audit_ssh"
expect_exit 0 "a report signs the head" -- "$FERRY" -C "$s" report --format md --output "$work/s.md"
fp=$(ssh-keygen -l -f "$work/audit_ssh.pub" | cut -d' ' -f2)
expect_exit 0 "a signed record verifies" -- "$FERRY" -C "$s" verify
expect_grep "^signature: event [0-9]* signs head .*, good, by ed25519 $pub$" "$work/out" "verify names the ed25519 signer"
expect_grep "^signature: event [0-9]* signs head .*, good, by $fp$" "$work/out" "verify names the SSH key's fingerprint"
expect_exit 0 "json lists the signatures" -- "$FERRY" -C "$s" verify --format json
python3 - "$work/out" "$pub" "$fp" <<'PY' && ok "json: two valid signatures with their signers" || fail "json signatures"
import json, sys
d = json.load(open(sys.argv[1]))
sig = d["signatures"]
assert [x["method"] for x in sig] == ["ed25519", "ssh"] and all(x["valid"] for x in sig), sig
assert sig[0]["signer"] == "ed25519 " + sys.argv[2] and sig[1]["signer"] == sys.argv[3], sig
PY
t="$work/forged-sig"
cp -r "$s" "$t"
sseq=$(sqlite3 "$t/.ferry/engagement.db" "SELECT min(seq) FROM audit WHERE payload LIKE '%\"kind\":\"signature\"%'")
python3 - "$t/.ferry/engagement.db" "$sseq" <<'PY'
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
payload, = c.execute("SELECT payload FROM audit WHERE seq = ?", (int(sys.argv[2]),)).fetchone()
ev = json.loads(payload)
sig = ev["data"]["signature"]
ev["data"]["signature"] = ("0" if sig[0] != "0" else "1") + sig[1:]
print(json.dumps(ev, sort_keys=True, separators=(",", ":")), file=open(sys.argv[1] + ".payload", "w"))
PY
recompute "$t" "$sseq" "$(sqlite3 "$t/.ferry/engagement.db" "SELECT json_extract(payload, '$.data.signature') FROM audit WHERE seq = $sseq")" \
	"$(python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).read())['data']['signature'])" "$t/.ferry/engagement.db.payload")"
expect_exit 1 "a forged signature (chain recomputed around it)" -- "$FERRY" -C "$t" verify
expect_grep "^audit event $sseq: signature: the signature does not match" "$work/out" "bad signature named"
printf 'not a key\n' >"$work/bad.key"
"$FERRY" -C "$s" config audit.sign_key "$work/bad.key" >/dev/null
signoffs() { sqlite3 "$1/.ferry/engagement.db" "SELECT count(*) FROM audit WHERE json_extract(payload, '$.kind') = 'signoff'"; }
before=$(signoffs "$s")
expect_exit 3 "an unusable key refuses the sign-off" -- "$FERRY" -C "$s" signoff design
expect_grep "bad.key" "$work/err" "the key file is named"
# the gate's check run before it is recorded (a check ran); the sign-off is not
[ "$(signoffs "$s")" -eq "$before" ] && ok "no sign-off recorded by the refused sign-off" || fail "refused sign-off recorded a sign-off"
"$FERRY" -C "$s" status --format json >"$work/st.json" 2>/dev/null
python3 -c "import json,sys; p=[x for x in json.load(open(sys.argv[1]))['phases'] if x['name']=='design'][0]; assert not p.get('signed_off_at'), p" "$work/st.json" \
	&& ok "design is not signed off" || fail "design signed off despite the refusal"

# a stored artifact replaced behind the record: compare refuses it instead of recording a
# verdict on other bytes under the artifact's name
x="$work/swap"
cp -r "$p" "$x"
printf 'step 1 loss 2.30\nstep 2 loss 1.91\n' >"$work/npu.log"
"$FERRY" -C "$x" ingest loss-log "$work/npu.log" --label npu >/dev/null
stored=$(sqlite3 "$x/.ferry/engagement.db" "SELECT path FROM artifacts WHERE label = 'npu'")
chmod u+w "$x/.ferry/artifacts/$stored"
printf 'step 1 loss 2.31\nstep 2 loss 1.90\n' >"$x/.ferry/artifacts/$stored"
before=$(db_events "$x")
expect_exit 3 "compare refuses an artifact whose stored copy was replaced" -- "$FERRY" -C "$x" compare loss gpu npu
expect_grep "artifact [0-9]*'s stored copy no longer matches the SHA-256 recorded" "$work/err" "the refusal names the artifact and why"
one_line "$work/err" "the refusal is one line"
[ "$(db_events "$x")" -eq "$before" ] && ok "nothing recorded on the replaced bytes" || fail "a comparison was recorded on replaced bytes"

finish

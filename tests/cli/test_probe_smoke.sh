#!/bin/sh
# The probe's NPU smoke test (`probe.sh --smoke`, `ferry ingest env-probe --local --smoke`)
# run with the distribution's torch and a stand-in torch_npu whose "NPU" is the CPU
# (tests/fixtures/fake_npu): a passing test is an info finding with the versions seen; an
# import failure, no visible card, or NPU results that disagree with the CPU are errors
# naming the step; a torch_npu whose metadata says another version is a warning.
. "$(dirname "$0")/lib.sh"
need_torch
export FERRY_PYTHON="$py" PYTHONPATH="$top/tests/fixtures/fake_npu"

smoke() { # NAME ENV...: a fresh engagement probed with --smoke under ENV, checked
	p="$work/$1"
	shift
	make_project "$p"
	"$FERRY" init "$p" >/dev/null
	env "$@" "$FERRY" -C "$p" ingest env-probe --local --smoke >/dev/null 2>"$work/err" || fail "ingest --local --smoke: $(cat "$work/err")"
	"$FERRY" -C "$p" check --plugin environment.smoke >/dev/null 2>&1
	"$FERRY" -C "$p" findings --plugin environment.smoke --format json >"$work/f.json"
}

smoke pass FAKE_NPU_SCALE=1
has info "torch_npu 1.13.0.post1 imported, 1 card(s) seen" && ok "a passing smoke test is recorded with the versions it imported" || fail "pass: $(cat "$work/f.json")"
has warning "installed package metadata says 9.9.9" && ok "a torch_npu that is not the one pip lists is a warning" || fail "shadow"

smoke differs FAKE_NPU_SCALE=1.05
has error "disagrees with the CPU beyond 1e-2: matmul 1.02e-01" && ok "NPU results 5 % off the CPU are an error with the difference" || fail "differs: $(cat "$work/f.json")"
has error "driver, firmware and CANN versions match" && ok "with advice for the step that failed" || fail "differs advice"

smoke nocard FAKE_NPU_CARDS=0
has error "stopped at step torch.npu.is_available" && ok "no visible card stops at torch.npu.is_available" || fail "nocard: $(cat "$work/f.json")"

smoke noimport FAKE_NPU_IMPORT_ERROR="libhccl.so: cannot open shared object file"
has error "stopped at step import torch_npu: ImportError: libhccl.so: cannot open shared object file" &&
	ok "an import error is quoted" || fail "noimport: $(cat "$work/f.json")"

p="$work/plain"
make_project "$p"
"$FERRY" init "$p" >/dev/null
"$FERRY" -C "$p" ingest env-probe --local >/dev/null 2>&1
"$FERRY" -C "$p" check --plugin environment.smoke >/dev/null 2>&1
"$FERRY" -C "$p" findings --plugin environment.smoke --format json >"$work/plain.txt"
python3 -c 'import json,sys; sys.exit(len(json.load(open(sys.argv[1]))["findings"]))' "$work/plain.txt" && ok "without --smoke the probe does not touch the NPU and nothing is reported" || fail "plain: $(cat "$work/plain.txt")"
expect_exit 2 "--smoke without --local is a usage error" -- "$FERRY" -C "$p" ingest env-probe x.json --smoke
expect_exit 0 "the printed probe script documents --smoke" -- "$FERRY" probe-script
expect_grep "sh probe.sh --smoke" "$work/out" "in its header"
finish

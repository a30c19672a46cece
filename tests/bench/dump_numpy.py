"""numpy baselines for the dump-comparison benchmark (compare_bench.sh).

Computes, for two .npy tensors A (baseline) and B, the metrics `ferry compare dump`
reports for a tensor pair: cosine similarity, Euclidean distance, max absolute error,
max relative error |B-A| / (|A| + 1e-12), the shares of elements whose relative error is
below 0.1 % and 0.5 %, and the NaN/inf counts (non-finite positions are left out of the
other metrics, as ferry does). Arithmetic in float64, like ferry.

  python3 dump_numpy.py whole A B      load both tensors and compute on whole arrays:
                                       the script a user writes first
  python3 dump_numpy.py chunked A B    np.load(mmap_mode="r") and the same sums over
                                       slices of CHUNK elements: bounded temporaries

Prints one line of `name=value` pairs, so the bench can check the figures agree with
ferry's.
"""
import sys

import numpy as np

CHUNK = 16 << 20  # elements per slice in the chunked mode
EPS = 1e-12


def partial_sums(a, b):
    """The sums and extremes of one slice, as a dict."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    fa = np.isfinite(a)
    fb = np.isfinite(b)
    both = fa & fb
    s = {
        "nfa": int(a.size - np.count_nonzero(fa)),
        "nfb": int(b.size - np.count_nonzero(fb)),
    }
    if s["nfa"] or s["nfb"]:
        # same NaN, or the same infinity, on both sides
        same = (np.isnan(a) & np.isnan(b)) | ((a == b) & ~both)
        s["mismatch"] = int(np.count_nonzero(~both & ~same))
        a = a[both]
        b = b[both]
    else:
        s["mismatch"] = 0
    d = b - a
    ad = np.abs(d)
    rel = ad / (np.abs(a) + EPS)
    s.update(
        dot=float(a @ b),
        na=float(a @ a),
        nb=float(b @ b),
        sq=float(d @ d),
        max_abs=float(ad.max()) if ad.size else 0.0,
        max_rel=float(rel.max()) if rel.size else 0.0,
        lt1=int(np.count_nonzero(rel < 0.001)),
        lt5=int(np.count_nonzero(rel < 0.005)),
        finite=int(a.size),
    )
    return s


def combine(parts):
    total = {}
    for p in parts:
        for k, v in p.items():
            if k.startswith("max_"):
                total[k] = max(total.get(k, 0.0), v)
            else:
                total[k] = total.get(k, 0) + v
    return total


def report(s, count):
    if s["na"] == 0 and s["nb"] == 0:
        cosine = 1.0 if s["finite"] or not count else float("nan")
    elif s["na"] == 0 or s["nb"] == 0:
        cosine = float("nan")
    else:
        cosine = min(1.0, max(-1.0, s["dot"] / (np.sqrt(s["na"]) * np.sqrt(s["nb"]))))
    fin = s["finite"]
    print(
        "cosine=%.9g euc_dist=%.9g max_abs_err=%.9g max_rel_err=%.9g "
        "one_thousandth_err_ratio=%.9g five_thousandths_err_ratio=%.9g "
        "nonfinite_a=%d nonfinite_b=%d nonfinite_mismatch=%d"
        % (
            cosine,
            np.sqrt(s["sq"]),
            s["max_abs"],
            s["max_rel"],
            s["lt1"] / fin if fin else float("nan"),
            s["lt5"] / fin if fin else float("nan"),
            s["nfa"],
            s["nfb"],
            s["mismatch"],
        )
    )


def main():
    mode, path_a, path_b = sys.argv[1:4]
    if mode == "whole":
        a = np.load(path_a).astype(np.float64).ravel()
        b = np.load(path_b).astype(np.float64).ravel()
        report(partial_sums(a, b), a.size)
    elif mode == "chunked":
        a = np.load(path_a, mmap_mode="r").reshape(-1)
        b = np.load(path_b, mmap_mode="r").reshape(-1)
        parts = [partial_sums(a[i : i + CHUNK], b[i : i + CHUNK]) for i in range(0, a.size, CHUNK)]
        report(combine(parts), a.size)
    else:
        sys.exit("usage: dump_numpy.py whole|chunked A B")


if __name__ == "__main__":
    main()

"""Times each export format; the exports come from the project's own export module."""
import time

import export
from export import export_onnx


def bench(model, im, file):
    t = time.time()
    export.run(weights="det.pt", include=["onnx"])
    export_onnx(model, im, file, 18, False)
    return time.time() - t

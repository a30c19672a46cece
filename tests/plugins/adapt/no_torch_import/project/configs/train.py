# Training settings, read by a LazyConfig-style loader that imports torch itself.
train = dict(
    output_dir="./output",
    max_iter=90000,
    device="cuda",
)

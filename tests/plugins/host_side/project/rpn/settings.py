# Plain settings shared by the target layers: no arrays, no tensors.
NEGATIVE = 0.3
POSITIVE = 0.7

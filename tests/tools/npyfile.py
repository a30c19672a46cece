"""Writes small float32 .npy files byte by byte, for tests that must not need numpy.

    import sys; sys.path.insert(0, TOOLS); from npyfile import save
    save("a.npy", [0.0, 0.5, 1.0])
"""
import struct


def save(path, values):
    """A one-dimensional little-endian float32 array in .npy format 1.0."""
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    hdr += " " * (64 - (10 + len(hdr) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))

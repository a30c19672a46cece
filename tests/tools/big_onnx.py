#!/usr/bin/env python3
"""Writes a large ONNX model quickly, for the tests and benchmarks of the ONNX reader.

usage: big_onnx.py OUT.onnx BYTES [--external]

The model is a real ModelProto (ir_version 8, opset 13): input x [batch,3,224,224],
Conv with weight W, Relu, output y. W holds BYTES bytes: inline as raw_data at the end of
the file, or with --external in OUT.data next to it (data_location EXTERNAL, offset 0,
length BYTES). The weight bytes are a hole (sparse file): the size is real, writing it
takes no time. Only the protobuf encoding is written here, by hand, so no onnx package
is needed.
"""
import os
import sys


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def fint(num, v):
    return varint(num << 3) + varint(v)


def value_info(name, dims):
    shape = b"".join(field(1, field(2, d.encode()) if isinstance(d, str) else fint(1, d)) for d in dims)
    return field(1, name.encode()) + field(2, field(1, fint(1, 1) + field(2, shape)))


def main(argv):
    out, size, external = argv[1], int(argv[2]), "--external" in argv[3:]
    elems = size // 4
    node = field(1, b"x") + field(1, b"W") + field(2, b"c") + field(4, b"Conv")
    relu = field(1, b"c") + field(2, b"y") + field(4, b"Relu")
    graph = field(1, node) + field(1, relu) + field(2, b"big")
    graph += field(11, value_info("x", ["batch", 3, 224, 224])) + field(12, value_info("y", ["batch", 8]))
    tensor = fint(1, elems) + fint(2, 1) + field(8, b"W")
    head = fint(1, 8) + field(2, b"big_onnx.py") + field(8, field(1, b"") + fint(2, 13))
    if external:
        data = os.path.basename(out)[: -len(".onnx")] + ".data"
        for k, v in (("location", data), ("offset", "0"), ("length", str(elems * 4))):
            tensor += field(13, field(1, k.encode()) + field(2, v.encode()))
        tensor += fint(14, 1)
        graph += field(5, tensor)
        with open(out, "wb") as fh:
            fh.write(head + field(7, graph))
        with open(os.path.join(os.path.dirname(out) or ".", data), "wb") as fh:
            fh.truncate(elems * 4)
        return 0
    raw_len = elems * 4
    raw_head = varint(9 << 3 | 2) + varint(raw_len)
    init_len = len(tensor) + len(raw_head) + raw_len
    init_head = varint(5 << 3 | 2) + varint(init_len)
    graph_len = len(graph) + len(init_head) + init_len
    with open(out, "wb") as fh:
        fh.write(head + varint(7 << 3 | 2) + varint(graph_len) + graph + init_head + tensor + raw_head)
        fh.truncate(fh.tell() + raw_len)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Writes the seed corpora fuzz/corpus/<target>/seed-* from the golden vectors in vectors/.

Each seed is in the input format of its target (see the doc comment at the top of each
fuzz_targets/*.rs) and at most MAX bytes, so that the committed seed set stays small.
Deterministic: running it again rewrites the same files. Called by seed.sh.
"""

import glob
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "vectors")
CORPUS = os.path.join(HERE, "corpus")
MAX = 4096


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(bytes(data[:MAX]))


def lines(path):
    with open(path, "rb") as f:
        return f.read().split(b"\n")


def xgmii_words(path):
    """(ctrl, data) of every transfer line."""
    out = []
    for line in lines(path):
        line = line.strip()
        if line and not line.startswith(b"#"):
            c, d = line.split()
            out.append((int(c, 16), int(d, 16)))
    return out


def b66_blocks(path):
    """(header, payload) of every block line, and the scrambler state comment if any."""
    out, state = [], None
    for line in lines(path):
        line = line.strip()
        if line.startswith(b"# scrambler_state="):
            state = int(line.split(b"=")[1], 16)
        elif line and not line.startswith(b"#"):
            h, p = line.split()
            out.append((int(h, 16), int(p, 16)))
    return out, state


def pcap_frames(path):
    """Record data of a little- or big-endian pcap file."""
    with open(path, "rb") as f:
        b = f.read()
    end = "<" if b[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    out, off = [], 24
    while off + 16 <= len(b):
        incl = struct.unpack(end + "I", b[off + 8 : off + 12])[0]
        out.append(b[off + 16 : off + 16 + incl])
        off += 16 + incl
    return out


def vector_files(pattern):
    return sorted(glob.glob(os.path.join(VECTORS, "*", pattern)))


def case(path):
    return os.path.basename(os.path.dirname(path))


def main():
    # Transfers: mac_rx (knob + 9 bytes a transfer), pcs_roundtrip (arbitrary mode).
    for path in vector_files("*.xgmii"):
        name = case(path) + "-" + os.path.basename(path).split(".")[0]
        words = b"".join(bytes([c]) + struct.pack("<Q", d) for c, d in xgmii_words(path))
        write("mac_rx", name, b"\x00" + words)
        write("pcs_roundtrip", name, b"\x01" + struct.pack("<Q", (1 << 58) - 1) + words)
        write("parse_xgmii", name, b"\n".join(lines(path)[:40]) + b"\n")

    # Blocks: rx_decode (knob + state + 9 bytes a block), parse_b66 (text).
    for path in vector_files("*.b66"):
        name = case(path) + "-" + os.path.basename(path).split(".")[0]
        blocks, state = b66_blocks(path)
        unscrambled = "unscrambled" in path
        knob = 0x00 if unscrambled else 0x20  # bit 5: descramble
        if state is None:
            state = (1 << 58) - 1
        body = b"".join(bytes([h]) + struct.pack("<Q", p) for h, p in blocks)
        write("rx_decode", name, bytes([knob]) + struct.pack("<Q", state) + body)
        write("parse_b66", name, b"\n".join(lines(path)[:40]) + b"\n")

    # Bits: lock_ber (knob, BER window bytes, then the stream).
    for path in vector_files("*.bits"):
        name = case(path) + "-" + os.path.basename(path).split(".")[0]
        with open(path, "rb") as f:
            bits = f.read()
        # ticks per block 1, window 64 + 1 ticks, threshold 4 + 1.
        write("lock_ber", name, b"\x00\x00\x40\x00\x04" + bits)
        write("lock_ber", name + "-10g", b"\x02\x00\x00\x00\x00" + bits)

    # Frames: read_pcap (the files), mac_roundtrip (ops of frames).
    for path in vector_files("*.pcap"):
        name = case(path)
        with open(path, "rb") as f:
            raw = f.read()
        if len(raw) <= MAX:
            write("read_pcap", name, raw)
        ops = b""
        for i, fr in enumerate(pcap_frames(path)):
            op = [0, 2, 5, 4][i % 4] if name == "demo" else 0
            ops += bytes([op]) + struct.pack("<H", len(fr)) + fr
        # IFG 12, strict DIC, padding to 60, scrambler all ones.
        write("mac_roundtrip", name, b"\x0c\x00\x00" + struct.pack("<Q", (1 << 58) - 1) + ops)

    # A small pcapng: section header, an interface with if_fcslen = 4, two enhanced packets.
    def block(kind, body):
        n = 12 + len(body)
        return struct.pack("<II", kind, n) + body + struct.pack("<I", n)

    shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    idb = block(1, struct.pack("<HHI", 1, 0, 65535) + struct.pack("<HH", 13, 1) + b"\x04\0\0\0" + b"\0" * 4)
    frames = pcap_frames(os.path.join(VECTORS, "runts", "frames.pcap"))[:2]
    epbs = b""
    for i, fr in enumerate(frames):
        fr = fr + b"\x11\x22\x33\x44"
        data = fr + b"\0" * (-len(fr) % 4)
        epbs += block(6, struct.pack("<IIIII", 0, 0, i, len(fr), len(fr)) + data)
    write("read_pcap", "fcslen-pcapng", shb + idb + epbs)

    # Legal XGMII programs for pcs_roundtrip and hand-made comparisons.
    write("pcs_roundtrip", "legal", b"\x00" + b"\0" * 8 + bytes(range(256)))
    write("pcs_roundtrip", "legal-packets", b"\x00" + b"\0" * 8 + bytes([1, 0, 5, 2] * 64))
    write("compare", "same", bytes([8]) + bytes(range(8)) + bytes(x for i in range(8) for x in (0x01, i)))
    write("compare", "mixed", bytes([12]) + bytes(range(0, 96, 8)) + bytes(range(256)))

    print("seeds written under", os.path.relpath(CORPUS), file=sys.stderr)


if __name__ == "__main__":
    main()

"""Small readers and writers for the files the ``baser`` command reads (docs/formats.md):
classic pcap frames and ``.b66`` block dumps. For tests and test benches; the command's own
readers (pcapng, file and line in every error) stay the reference."""

import struct

_PCAP_MAGIC = {
    b"\xd4\xc3\xb2\xa1": "<",  # microseconds, little endian
    b"\xa1\xb2\xc3\xd4": ">",
    b"\x4d\x3c\xb2\xa1": "<",  # nanoseconds
    b"\xa1\xb2\x3c\x4d": ">",
}


def read_pcap(path):
    """The frames of a classic pcap file (LINKTYPE_ETHERNET), as bytes."""
    with open(path, "rb") as f:
        data = f.read()
    end = _PCAP_MAGIC.get(data[:4])
    if end is None:
        raise ValueError(f"{path}: not a classic pcap file (pcapng: use the baser command)")
    (linktype,) = struct.unpack(end + "I", data[20:24])
    if linktype & 0xFFFF != 1:
        raise ValueError(f"{path}: link type {linktype}, expected 1 (Ethernet)")
    frames, at = [], 24
    while at + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + "IIII", data[at : at + 16])
        at += 16
        if at + incl > len(data):
            raise ValueError(f"{path}: record {len(frames)} is cut short")
        frames.append(data[at : at + incl])
        at += incl
    return frames


def write_pcap(path, frames):
    """Writes frames (DA to the end of the payload) as a classic pcap file."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for n, frame in enumerate(frames):
            frame = bytes(frame)
            f.write(struct.pack("<IIII", n, 0, len(frame), len(frame)))
            f.write(frame)


def read_b66(path):
    """A ``.b66`` dump: returns ``(blocks, scrambled, scrambler_state)``; blocks are
    ``(header, payload)`` pairs; ``scrambler_state`` is None when the file gives none (or
    ``auto``): the descrambler is trained on the first block, as the command does."""
    blocks, scrambled, state = [], True, None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                word = line[1:].strip()
                if word == "unscrambled":
                    scrambled = False
                elif word.startswith("scrambler_state="):
                    value = word.split("=", 1)[1]
                    state = None if value == "auto" else int(value, 16)
                continue
            try:
                h, p = line.split()
                blocks.append((int(h, 16), int(p, 16)))
            except ValueError:
                raise ValueError(f"{path}:{n}: expected `H PPPPPPPPPPPPPPPP`, got {line!r}") from None
    return blocks, scrambled, state


def write_b66(path, blocks, scrambled=True, scrambler_state=None):
    """Writes ``(header, payload)`` blocks as a ``.b66`` dump."""
    with open(path, "w") as f:
        f.write("# scrambled\n" if scrambled else "# unscrambled\n")
        if scrambler_state is not None:
            f.write(f"# scrambler_state={scrambler_state:#x}\n")
        for h, p in blocks:
            f.write(f"{h:x} {p:016x}\n")

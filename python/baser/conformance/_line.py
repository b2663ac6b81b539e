"""The line a receive case sends: 66-bit blocks built from the model's transmitter and from
block formats written out (Figure 49-7), scrambled, then cut into serdes clocks.

A case describes its line with :class:`LineBuilder` in *unscrambled* blocks, so that it can
put what no conforming transmitter sends (an ``/E/`` inside a frame, a reserved block type,
an invalid sync header) where it wants; :func:`scramble` then makes the line (49.2.6).
"""

from .. import _baser

IDLE = (1, 0x1E)  # a control block of eight /I/ (Table 49-7)
EBLOCK = (1, 0x1E | sum(0x1E << (8 + 7 * k) for k in range(8)))  # eight /E/
M58 = (1 << 58) - 1
M64 = (1 << 64) - 1


def control_block(codes):
    """A 0x1e block of eight 7-bit control codes (lane 0 first)."""
    return (1, 0x1E | sum((c & 0x7F) << (8 + 7 * k) for k, c in enumerate(codes)))


def ordered_set_block(kind, seq=1):
    """A block holding a sequence ordered set of type ``seq`` (1 Local Fault, 2 Remote
    Fault; data lanes 00 00 seq): ``0x4b`` in lane 0 with idles after it, ``0x2d`` in lane
    4 after idles, ``0x55`` in both (Figure 49-7)."""
    if kind == 0x4B:
        return (1, 0x4B | (seq << 24))
    if kind == 0x2D:
        return (1, 0x2D | (seq << 56))
    if kind == 0x55:
        return (1, 0x55 | (seq << 24) | (seq << 56))
    raise ValueError(f"ordered set block type 0x{kind:02x}: expected 0x2d, 0x4b or 0x55")


def scramble(blocks, state=M58):
    """Scrambles ``(header, payload)`` blocks, 1 + x^39 + x^58 over the payload (49.2.6);
    ``state`` in DESIGN.md's convention. Word-parallel in three pieces: bits 0..38 depend on
    the state only, 39..57 on the state and bits 0..18, 58..63 on bits 0..24."""
    out = []
    for header, d in blocks:
        o = (d ^ (state >> 19) ^ state) & ((1 << 39) - 1)
        o |= (((d >> 39) ^ o ^ (state >> 39)) & ((1 << 19) - 1)) << 39
        o |= (((d >> 58) ^ (o >> 19) ^ o) & 0x3F) << 58
        state = ((state | (o << 58)) >> 64) & M58
        out.append((header, o))
    return out


class LineBuilder:
    """Unscrambled blocks, in order, with where each frame sent starts and ends, and the
    line slips (bits inserted or deleted) between blocks."""

    def __init__(self):
        self.blocks = []
        self.slips = {}  # block index -> bits inserted (> 0) or deleted (< 0) before it
        self.frames = []  # per frame: dict(frame, s_block, s_lane, t_block)

    def idle(self, n):
        self.blocks.extend([IDLE] * n)
        return self

    def block(self, header, payload):
        self.blocks.append((header, payload))
        return self

    def slip(self, bits):
        self.slips[len(self.blocks)] = self.slips.get(len(self.blocks), 0) + bits
        return self

    def send(self, frames, ifg=12, dic=True, lane4_starts=False, fcs=None):
        """Frames through the model's transmitter (MAC + encoder, unscrambled), back to back
        with ``ifg`` and the deficit idle count; ``fcs``: per frame None or the 4 octets to
        send instead of the right FCS. Returns the indices in :attr:`frames`."""
        tx = _baser.TxModel(scrambled=False, ifg=ifg, dic=dic, lane4_starts=lane4_starts)
        first = len(self.frames)
        ids = {}
        for i, f in enumerate(frames):
            given = None if fcs is None else fcs[i]
            ids[tx.push(bytes(f), given) if given is not None else tx.push(bytes(f))] = i
            self.frames.append({"frame": bytes(f), "s_block": None, "t_block": None})
        ends = 0
        while ends < len(frames) or len(self.blocks) < 2:
            header, payload, events = tx.next()
            for kind, fid, lane in events or ():
                rec = self.frames[first + ids[fid]]
                if kind == 0:
                    rec["s_block"], rec["s_lane"] = len(self.blocks), lane
                elif kind == 2:
                    rec["t_block"], rec["t_lane"] = len(self.blocks), lane
                    ends += 1
            self.blocks.append((header, payload))
        return list(range(first, len(self.frames)))

    def edit_octet(self, index, offset, value):
        """Replaces the octet ``offset`` lanes after frame ``index``'s ``/S/`` (1..6 the
        preamble, 7 the SFD, 8 the first of the destination address) in its block."""
        rec = self.frames[index]
        pos = rec["s_lane"] + offset
        b = rec["s_block"] + pos // 8
        lane = pos % 8
        header, payload = self.blocks[b]
        if header == 1 and not (payload & 0xFF in (0x78, 0x33, 0x66) and lane >= 1):
            raise ValueError(f"block {b} lane {lane} holds no data octet")
        shift = 8 * lane
        self.blocks[b] = (header, (payload & ~(0xFF << shift) & M64) | (value << shift))

    def replace_inside(self, index, block, where=0.5):
        """Replaces a data block inside frame ``index`` (at ``where`` of its length) with
        ``block``; returns its position."""
        rec = self.frames[index]
        inner = [i for i in range(rec["s_block"] + 1, rec["t_block"]) if self.blocks[i][0] == 2]
        if not inner:
            raise ValueError(f"frame {index} has no data block to replace")
        pos = inner[min(len(inner) - 1, int(len(inner) * where))]
        self.blocks[pos] = block
        return pos

    def line(self, state=M58):
        """The scrambled line and its slips."""
        return scramble(self.blocks, state), dict(self.slips)


class Cursor:
    """Reads the line as 66-bit serdes clocks: each :meth:`take` gives the next ``(header,
    data)``; ``slip=True`` first drops one bit, as a serdes does on a receiver's bit slip
    request. The line's own slips (:meth:`LineBuilder.slip`) are applied as their block is
    reached, so two cursors over one line see the same bits."""

    def __init__(self, blocks, slips):
        self.blocks = blocks
        self.slips = slips
        self.i = 0
        self.bits = 0
        self.n = 0

    def _next_block(self):
        slip = self.slips.get(self.i, 0)
        if slip > 0:  # bits inserted: alternating ones and zeros
            self.bits |= (0x2AAAAAAAAAAAAAAAAA & ((1 << slip) - 1)) << self.n
            self.n += slip
        header, payload = self.blocks[self.i]
        self.i += 1
        self.bits |= (header | (payload << 2)) << self.n
        self.n += 66
        if slip < 0:  # bits deleted
            self.bits >>= -slip
            self.n += slip

    def left(self):
        """Whole blocks not yet read."""
        return len(self.blocks) - self.i

    def take(self, slip=False):
        while self.n < 67:
            self._next_block()
        if slip:
            self.bits >>= 1
            self.n -= 1
        unit = self.bits & ((1 << 66) - 1)
        self.bits >>= 66
        self.n -= 66
        return unit & 3, unit >> 2

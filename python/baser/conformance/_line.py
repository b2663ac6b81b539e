"""The line a receive case sends: 66-bit blocks from the model's transmitter and from XGMII
transfers through pcs-core's block encoder, scrambled by pcs-core's scrambler, then cut into
serdes clocks.

A case describes its line with :class:`LineBuilder` in *unscrambled* blocks, so that it can
put what no conforming transmitter sends (an ``/E/`` inside a frame, a reserved block type,
an invalid sync header) where it wants; :func:`scramble` then makes the line (49.2.6). Block
formats (Figure 49-7) and the scrambler are the model's (``baser._baser.encode_word``,
``decode_block``, ``control_block``, ``scramble_blocks``); nothing here knows a bit of them.
"""

from .. import _baser

M64 = (1 << 64) - 1

# XGMII control characters (Table 46-3): idle, error, sequence and signal ordered set
I, E, Q, FSIG = 0x07, 0xFE, 0x9C, 0x5C


def transfer(lanes):
    """An XGMII transfer ``(data, ctrl)`` from eight lanes, lane 0 first: ``("K", char)`` for
    a control character, an int for a data octet."""
    data = ctrl = 0
    for k, lane in enumerate(lanes):
        if isinstance(lane, tuple):
            ctrl |= 1 << k
            lane = lane[1]
        data |= lane << (8 * k)
    return data, ctrl


def K(char):
    return ("K", char)


IDLE = _baser.encode_word(*transfer([K(I)] * 8))  # a control block of eight /I/
EBLOCK = _baser.encode_word(*transfer([K(E)] * 8))  # eight /E/ (EBLOCK_T)


def control_block(codes):
    """A 0x1e block of eight 7-bit control codes (lane 0 first), valid ones or not."""
    return _baser.control_block(list(codes))


def ordered_set(seq=1, signal=False):
    """The four lanes of an ordered set: ``/Q/`` (or ``/Fsig/``) and data 00 00 ``seq`` (1
    Local Fault, 2 Remote Fault)."""
    return [K(FSIG if signal else Q), 0, 0, seq]


def ordered_set_block(kind, seq=1, signal=False):
    """A block holding an ordered set (``ordered_set``): ``0x4b`` in lane 0 with idles
    after it, ``0x2d`` in lane 4 after idles, ``0x55`` in both (Figure 49-7)."""
    idles, os = [K(I)] * 4, ordered_set(seq, signal)
    lanes = {0x4B: os + idles, 0x2D: idles + os, 0x55: os + os}.get(kind)
    if lanes is None:
        raise ValueError(f"ordered set block type 0x{kind:02x}: expected 0x2d, 0x4b or 0x55")
    return _baser.encode_word(*transfer(lanes))


def scramble(blocks, state=None):
    """Scrambles ``(header, payload)`` blocks (49.2.6) from ``state`` (None: all ones), with
    the model's scrambler; returns the line blocks and the state after them."""
    return _baser.scramble_blocks(blocks, state)


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
        data, ctrl = _baser.decode_block(*self.blocks[b])
        if ctrl >> lane & 1:
            raise ValueError(f"block {b} lane {lane} holds no data octet")
        shift = 8 * lane
        self.blocks[b] = _baser.encode_word((data & ~(0xFF << shift) & M64) | (value << shift), ctrl)

    def edit_lanes(self, block, lanes):
        """Replaces lanes 0.. of block ``block``'s transfer with ``lanes`` (as
        :func:`transfer` takes them) and encodes it again; returns the new block."""
        data, ctrl = _baser.decode_block(*self.blocks[block])
        new_data, new_ctrl = transfer(lanes)
        mask = (1 << (8 * len(lanes))) - 1
        cmask = (1 << len(lanes)) - 1
        self.blocks[block] = _baser.encode_word((data & ~mask) | new_data, (ctrl & ~cmask) | new_ctrl)
        return self.blocks[block]

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

    def line(self, state=None):
        """The scrambled line and its slips."""
        return scramble(self.blocks, state)[0], dict(self.slips)


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

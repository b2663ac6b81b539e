"""The Python the conformance catalogue's stimulus was first written in, kept as the oracle of
the engine's (engine/src/conformance/): the same cases built with Python's own random draws,
scrambler, block formats, line builder and serdes cursor (the model's transmitter,
``TxModel``, sends the frames, as it did then). test_conformance.py builds every case both ways and compares them
bit for bit."""

import random

from baser import _baser

M64 = (1 << 64) - 1
M58 = (1 << 58) - 1
LEAD = 200
SETTLE = 300


def scramble(blocks, state=None):
    state = M58 if state is None else state
    out = []
    for header, d in blocks:
        o = (d ^ (state >> 19) ^ state) & ((1 << 39) - 1)
        o |= (((d >> 39) ^ o ^ (state >> 39)) & ((1 << 19) - 1)) << 39
        o |= (((d >> 58) ^ (o >> 19) ^ o) & 0x3F) << 58
        state = ((state | (o << 58)) >> 64) & M58
        out.append((header, o))
    return out, state


def control_block(codes):
    return (1, 0x1E | sum((c & 0x7F) << (8 + 7 * k) for k, c in enumerate(codes)))


IDLE = control_block([0] * 8)
EBLOCK = control_block([0x1E] * 8)


def ordered_set(seq=1, signal=False):
    return [("K", 0x5C if signal else 0x9C), 0, 0, seq]


def ordered_set_block(kind, seq=1, signal=False):
    o = 0xF if signal else 0
    low, high = (seq << 24) | (o << 32), (o << 36) | (seq << 56)
    return (1, kind | {0x4B: low, 0x2D: high, 0x55: low | high}[kind])


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
        assert header == 2 or (payload & 0xFF in (0x78, 0x33, 0x66) and lane >= 1)
        shift = 8 * lane
        self.blocks[b] = (header, (payload & ~(0xFF << shift) & M64) | (value << shift))

    def edit_lanes(self, block, lanes):
        """Replaces lanes 0.. of block ``block``'s transfer with ``lanes`` (as
        :func:`transfer` takes them) and encodes it again; returns the new block."""
        header, p = self.blocks[block]  # only use: an ordered set over a lane-4 start block
        assert p & 0xFF == 0x33 and lanes == ordered_set(1)
        self.blocks[block] = (1, (p & ~((1 << 40) - 1)) | (0x1 << 24) | 0x66)

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


def frame(i, length, rng):
    """A frame of ``length`` octets without FCS: DA, SA, an experimental EtherType, the index."""
    head = bytes.fromhex("020000000002020000000001") + b"\x88\xb5" + i.to_bytes(2, "big")
    return (head + rng.randbytes(max(0, length - len(head))))[:length]


def _lengths(rng, n, lo=60, hi=1514):
    return [rng.randint(lo, hi) for _ in range(n)]


def _rx(build):
    def run(adapter):
        lb = LineBuilder().idle(LEAD)
        build(lb, adapter, random.Random(1))
        return lb.idle(SETTLE)
    return run


@_rx
def rx_frames(lb, a, rng):
    lb.send([frame(i, n, rng) for i, n in enumerate([60, 64, 1514] + _lengths(rng, 20))])
    lb.idle(8)
    lb.send([frame(i, n, rng) for i, n in enumerate(_lengths(rng, 12))], lane4_starts=True)


@_rx
def rx_terminate_lanes(lb, a, rng):
    for start4 in (False, True):  # /T/ in each lane 0..7 from both start lanes
        lb.send([frame(i, 60 + i, rng) for i in range(8)], lane4_starts=start4)
        lb.idle(4)


@_rx
def rx_ifg(lb, a, rng):
    for ifg in range(5, 16):
        for dic in (True, False):
            lb.send([frame(i, 60 + (i * 7) % 9, rng) for i in range(8)], ifg=ifg, dic=dic)
            lb.idle(3)


@_rx
def rx_bad_fcs(lb, a, rng):
    frames = [frame(i, n, rng) for i, n in enumerate(_lengths(rng, 10))]
    lb.send(frames, fcs=[b"\x00\x00\x00\x00" if i % 3 == 1 else None for i in range(10)])


@_rx
def rx_length_limits(lb, a, rng):
    lens = [60, a.max_frame_length - 4, a.max_frame_length - 3, 2000, 9000, 60]
    frames = [frame(i, n, rng) for i, n in enumerate(lens)]
    lb.send(frames)
    lb.idle(4)
    # a runt: given its FCS the model's transmitter sends a frame as it is, unpadded
    lb.send([frame(2, 40, rng), frame(3, 60, rng)], fcs=[b"\x00\x00\x00\x00", None])
    lb.idle(1200)  # a store-and-forward receiver is still delivering the 9004-octet frame


@_rx
def rx_bad_preamble(lb, a, rng):
    idx = lb.send([frame(i, 100, rng) for i in range(6)], lane4_starts=False)
    lb.edit_octet(idx[1], 3, 0x54)  # a preamble octet
    lb.edit_octet(idx[3], 7, 0xD4)  # the SFD


@_rx
def rx_error_inside(lb, a, rng):
    idx = lb.send([frame(i, 300, rng) for i in range(6)])
    lb.replace_inside(idx[1], EBLOCK)  # /E/ in every lane inside the frame
    e_lane = control_block([0x1E] * 8)
    lb.replace_inside(idx[3], e_lane, 0.2)
    before = list(lb.blocks)
    pos = lb.replace_inside(idx[4], (2, 0), 0.7)  # a data block's header made invalid
    lb.blocks[pos] = (0, before[pos][1])


@_rx
def rx_invalid_header_between(lb, a, rng):
    lb.send([frame(i, 200, rng) for i in range(3)])
    for hdr in (0, 3, 0, 3):
        lb.idle(20).block(hdr, 0x1E)
    lb.idle(20)
    lb.send([frame(i, 200, rng) for i in range(3)])


@_rx
def rx_control_codes(lb, a, rng):
    """Idle, /LI/, each reserved control code, a signal ordered set, a reserved block
    type and an invalid control code, each between frames."""
    blocks = [control_block([0x06] * 8)]  # /LI/ (no EEE: a valid control code)
    blocks += [control_block([c] * 8) for c in (0x2D, 0x33, 0x4B, 0x55, 0x66, 0x78)]
    blocks += [ordered_set_block(0x4B, 1, signal=True)]  # /Fsig/ in lane 0
    blocks += [(1, 0x4C), control_block([0x01] * 8)]  # reserved type, invalid code
    for b in blocks:
        lb.send([frame(0, 64, rng)])
        lb.idle(2).block(*b).idle(2)
    lb.send([frame(1, 64, rng)])


def _rx_os(kind):
    @_rx
    def build(lb, a, rng):
        lb.send([frame(0, 100, rng)])
        for _ in range(8):  # Local Fault in every column this block type can carry
            lb.block(*ordered_set_block(kind, 1)).idle(1)
        lb.idle(200)  # 128 columns without one: cleared
        lb.send([frame(1, 100, rng)])
    return build


@_rx
def rx_os_with_start(lb, a, rng):
    """0x66: an ordered set in lane 0 and a frame's /S/ in lane 4."""
    idx = lb.send([frame(0, 100, rng), frame(1, 100, rng)], lane4_starts=True)
    rec = lb.frames[idx[1]]
    if rec["s_lane"] != 4:
        raise ValueError("the second frame's /S/ is not in lane 4")
    lb.edit_lanes(rec["s_block"], ordered_set(1))  # /Q/ 00 00 01 in lanes 0..3


@_rx
def rx_link_fault(lb, a, rng):
    lb.send([frame(0, 100, rng)])
    for _ in range(40):  # Local Fault: raised after 4, then frames held off by the RS
        lb.block(*ordered_set_block(0x55, 1))
    lb.idle(200)
    for _ in range(40):  # Remote Fault
        lb.block(*ordered_set_block(0x55, 2))
    lb.idle(200)
    for _ in range(3):  # three only: no fault
        lb.block(*ordered_set_block(0x4B, 1)).idle(2)
    lb.idle(200)
    lb.send([frame(1, 100, rng)])


def _ber(n):
    @_rx
    def build(lb, a, rng):
        lb.send([frame(0, 100, rng)])
        for _ in range(n):  # one invalid header every 5 blocks: never 16 in 64 (no lock loss)
            lb.idle(4).block(0, 0x1E)
        if n >= 16:  # the window ends (<= 2 windows) and hi_ber clears
            lb.idle(2 * a.ber_window_blocks + a.ber_window_blocks // 50)
        lb.idle(100)
        lb.send([frame(1, 100, rng)])
    return build


@_rx
def rx_lock_loss(lb, a, rng):
    lb.send([frame(0, 100, rng)])
    for _ in range(16):  # 16 invalid headers in a row: lock lost (49.2.9)
        lb.block(3, 0x1E)
    lb.idle(2000)  # relock from any offset
    lb.send([frame(1, 100, rng)])


@_rx
def rx_bit_slip(lb, a, rng):
    lb.send([frame(0, 100, rng)])
    lb.idle(50).slip(13)  # 13 bits inserted in the line: the boundary moves
    lb.idle(3000)
    lb.send([frame(1, 100, rng)])
    lb.idle(50).slip(-29)
    lb.idle(3000)
    lb.send([frame(2, 100, rng)])


def _tx(frames_of, aborts=()):
    def run(adapter):
        rng = random.Random(2)
        return frames_of(rng, adapter), set(aborts)
    return run


def tx_lengths(rng, a):
    """14..64 octets: a MAC client's frame holds at least DA, SA and type (4.2.3.3), the MAC
    pads it to 60."""
    return [frame(i, n, rng) for i, n in enumerate(list(range(14, 65)) + [1514, 1500, 100, 17])]


def tx_dic(rng, a):
    return [frame(i, n, rng) for i, n in enumerate([64, 65, 66, 67] * 4 + _lengths(rng, 16, 60, 300))]


def tx_jumbo(rng, a):
    return [frame(i, n, rng) for i, n in enumerate([60, 1514, 9000, 60])]


def tx_abort(rng, a):
    return [frame(i, 200, rng) for i in range(6)]


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


# the catalogue's builders by name, in its order
BUILDERS = {
    "rx-frames": rx_frames, "rx-terminate-lanes": rx_terminate_lanes, "rx-ifg": rx_ifg,
    "rx-bad-fcs": rx_bad_fcs, "rx-length-limits": rx_length_limits,
    "rx-bad-preamble": rx_bad_preamble, "rx-error-in-frame": rx_error_inside,
    "rx-invalid-header-idle": rx_invalid_header_between, "rx-control-codes": rx_control_codes,
    "rx-ordered-set-4b": _rx_os(0x4B), "rx-ordered-set-2d": _rx_os(0x2D),
    "rx-ordered-set-55": _rx_os(0x55), "rx-ordered-set-66": rx_os_with_start,
    "rx-link-fault": rx_link_fault, "rx-hi-ber-15": _ber(15), "rx-hi-ber-16": _ber(16),
    "rx-lock-loss": rx_lock_loss, "rx-bit-slip": rx_bit_slip,
    "tx-lengths": _tx(tx_lengths), "tx-dic": _tx(tx_dic), "tx-jumbo": _tx(tx_jumbo),
    "tx-abort": _tx(tx_abort, aborts=(2,)),
}

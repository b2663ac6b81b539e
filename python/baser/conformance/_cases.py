"""The catalogue: each case names the clause it checks, builds its stimulus and says what
the standard demands beyond agreeing with the model (``expect``: status values in order)."""

import random

from ._line import EBLOCK, LineBuilder, control_block, ordered_set, ordered_set_block

LEAD = 200  # idle blocks before a case's stimulus: block lock (64 headers) with room
SETTLE = 300  # idle blocks after it
BER_WINDOW_BLOCKS = 19531  # the standard's 125 us BER timer in blocks (the model's)


class Case:
    def __init__(self, name, clause, title, kind, build, expect=None, needs=(), counters=True,
                 standard_ber_timer=False):
        self.name = name
        self.clause = clause
        self.title = title
        self.kind = kind  # "rx" or "tx"
        self.build = build
        self.expect = expect or {}
        self.needs = tuple(needs)
        self.counters = counters
        # the model's BER timer is the standard's: a DUT with another is skipped
        self.standard_ber_timer = standard_ber_timer


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


CASES = [
    Case("rx-frames", "4.2.9, 49.2.13", "frames 60..1514 octets from both start lanes received whole", "rx", rx_frames),
    Case("rx-terminate-lanes", "49.2.4.4, Fig. 49-7", "/T/ in each lane 0..7 (block types 0x87..0xff), both start lanes", "rx", rx_terminate_lanes),
    Case("rx-ifg", "46.2.1, 46.3.1.4", "IFG 5..15 octets with and without the deficit idle count: every frame received", "rx", rx_ifg),
    Case("rx-bad-fcs", "4.2.4.1.2, 4.2.9", "a bad FCS: flagged (or dropped), counted", "rx", rx_bad_fcs),
    Case("rx-length-limits", "4.2.4.2.1, 4.4.2", "64 and 1518 octets good; 1519, 2004, 9004 too long; a runt", "rx", rx_length_limits),
    Case("rx-bad-preamble", "4.2.5, 46.3.2", "a wrong preamble octet and a wrong SFD", "rx", rx_bad_preamble),
    Case("rx-error-in-frame", "49.2.13.2.3, Fig. 49-17", "/E/ and an invalid sync header inside frames", "rx", rx_error_inside),
    Case("rx-invalid-header-idle", "49.2.4.3, 49.2.13", "invalid sync headers 00 and 11 between frames", "rx", rx_invalid_header_between),
    Case("rx-control-codes", "Table 49-1, 49-7", "/LI/, reserved control codes, /Fsig/, a reserved block type, an invalid code", "rx", rx_control_codes),
    Case("rx-ordered-set-4b", "Fig. 49-7 (0x4b), 46.3.4", "Local Fault in 0x4b blocks (lane 0): fault raised, cleared", "rx", _rx_os(0x4B), {"local_fault": (False, True, False)}, needs=("status.local_fault",)),
    Case("rx-ordered-set-2d", "Fig. 49-7 (0x2d), 46.3.4", "Local Fault in 0x2d blocks (lane 4): fault raised, cleared", "rx", _rx_os(0x2D), {"local_fault": (False, True, False)}, needs=("status.local_fault",)),
    Case("rx-ordered-set-55", "Fig. 49-7 (0x55), 46.3.4", "Local Fault in 0x55 blocks (both lanes): fault raised, cleared", "rx", _rx_os(0x55), {"local_fault": (False, True, False)}, needs=("status.local_fault",)),
    Case("rx-ordered-set-66", "Fig. 49-7 (0x66)", "an ordered set in lane 0 with /S/ in lane 4: the frame received", "rx", rx_os_with_start),
    Case("rx-link-fault", "46.3.4, Fig. 46-11", "Local then Remote Fault raised and cleared; 3 sequences raise nothing", "rx", rx_link_fault, {"local_fault": (False, True, False), "remote_fault": (False, True, False)}, needs=("status.local_fault", "status.remote_fault")),
    Case("rx-hi-ber-15", "49.2.14.2, Fig. 49-15", "15 invalid headers in a 125 us window: hi_ber stays low", "rx", _ber(15), {"hi_ber": (False,)}, needs=("status.hi_ber",)),
    Case("rx-hi-ber-16", "49.2.14.2, Fig. 49-15", "16 invalid headers in a 125 us window: hi_ber rises, clears after a clean window", "rx", _ber(16), {"hi_ber": (False, True, False)}, needs=("status.hi_ber",), standard_ber_timer=True),
    Case("rx-lock-loss", "49.2.9, Fig. 49-14", "16 invalid headers in 64: block lock lost and found again", "rx", rx_lock_loss, {"block_lock": (True, False, True)}, needs=("status.block_lock",), counters=False),
    Case("rx-bit-slip", "49.2.9, Fig. 49-14", "the line slips 13 bits, then 29 back: lock lost and found each time", "rx", rx_bit_slip, {"block_lock": (True, False, True, False, True)}, needs=("status.block_lock",), counters=False),
    Case("tx-lengths", "4.2.3.3, 4.2.8, 49.2.13", "frames of 14..64 octets padded, 1514: FCS, preamble, bit exact on the line", "tx", _tx(tx_lengths)),
    Case("tx-dic", "46.3.1.4", "back-to-back frames of every length mod 4: the gaps of the deficit idle count", "tx", _tx(tx_dic)),
    Case("tx-jumbo", "4.2.8", "a 9000-octet frame between short ones, bit exact", "tx", _tx(tx_jumbo)),
    Case("tx-abort", "46.3.1.3, 49.2.13", "a frame aborted by tuser reaches the line as an error, never as a good frame", "tx", _tx(tx_abort, aborts=(2,))),
]

# what every case needs besides its own: the receive cases that judge only block lock or
# hi_ber run on a PHY-only top (no frames out: its rx_axis None); the others need frames
STATUS_ONLY = ("rx-hi-ber-15", "rx-hi-ber-16", "rx-lock-loss", "rx-bit-slip")
for _c in CASES:
    if _c.kind == "tx":
        _c.needs += ("serdes_tx", "tx_axis")
    else:
        _c.needs += ("serdes_rx",) if _c.name in STATUS_ONLY else ("serdes_rx", "rx_axis")

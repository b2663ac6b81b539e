"""baser.conformance without a simulator: the receive judge's pairing (missing and extra
frames, a PHY-only top), the cases a PHY-only adapter runs, the shipped waivers, every
case's stimulus built on the model against the Python it replaced."""

from types import SimpleNamespace

from baser.conformance import CASES, load_waivers, waivers
from baser.conformance import _judge


def _frame(i, cls="ok"):
    data = bytes([i]) * 60 + b"\xaa\xbb\xcc\xdd"  # the FCS stands in; the judge strips it
    return SimpleNamespace(data=data, class_=cls, start_block=10 * i, start_lane=0)


def _obs(model, dut):
    return SimpleNamespace(model_frames=model, dut_frames=dut)


MAC = SimpleNamespace(rx_axis={}, rx_fcs_stripped=True)


def _dut(i, bad=False):
    return (bytes([i]) * 60, bad, 100 * i)


def test_all_received():
    assert _judge.frames(_obs([_frame(1), _frame(2)], [_dut(1), _dut(2)]), MAC) == []


def test_a_skipped_frame_is_missing():
    out = _judge.frames(_obs([_frame(1), _frame(2), _frame(3)], [_dut(1), _dut(3)]), MAC)
    assert len(out) == 1 and "frame 1" in out[0] and "delivered nothing" in out[0], out


def test_extra_frames_before_the_expected_one():
    junk = (b"\x55" * 16, True, 150)
    out = _judge.frames(_obs([_frame(1), _frame(2)], [_dut(1), junk, _dut(2)]), MAC)
    assert len(out) == 1 and "did not (16 octets, flag high" in out[0], out


def test_a_bad_frame_delivered_good():
    out = _judge.frames(_obs([_frame(1, "too_long")], [_dut(1)]), MAC)
    assert len(out) == 1 and "too_long" in out[0] and "flag low" in out[0], out
    assert _judge.frames(_obs([_frame(1, "too_long")], [_dut(1, True)]), MAC) == []
    assert _judge.frames(_obs([_frame(1, "too_long")], []), MAC) == []


def test_a_phy_only_top_has_no_frames_to_judge():
    phy = SimpleNamespace(rx_axis=None, rx_fcs_stripped=True)
    assert _judge.frames(_obs([_frame(1)], []), phy) == []


def test_status_only_cases_need_no_mac():
    no_mac = [c.name for c in CASES if "rx_axis" not in c.needs and "tx_axis" not in c.needs]
    assert no_mac == ["rx-hi-ber-15", "rx-hi-ber-16", "rx-lock-loss", "rx-bit-slip"]


def test_shipped_waivers_name_catalogue_cases():
    names = {c.name for c in CASES}
    for rtl in ("verilog-ethernet", "taxi"):
        w = load_waivers(waivers(rtl))
        assert w and set(w) <= names and all(len(r) > 40 for r in w.values())


# --------------------------------------------------------------------------- the stimulus
# The receive cases' lines are built on the model (pcs-core's block encoder and decoder, its
# 0x1E block of any codes, its scrambler: baser._baser.encode_word, decode_block,
# control_block, scramble_blocks). Below, the Python they replaced, kept as the oracle: every
# case's line, built once each way, must be bit for bit the same.

from baser.conformance import _cases, _line  # noqa: E402

_M58 = (1 << 58) - 1
_M64 = (1 << 64) - 1


def _py_scramble(blocks, state=None):
    state = _M58 if state is None else state
    out = []
    for header, d in blocks:
        o = (d ^ (state >> 19) ^ state) & ((1 << 39) - 1)
        o |= (((d >> 39) ^ o ^ (state >> 39)) & ((1 << 19) - 1)) << 39
        o |= (((d >> 58) ^ (o >> 19) ^ o) & 0x3F) << 58
        state = ((state | (o << 58)) >> 64) & _M58
        out.append((header, o))
    return out, state


def _py_control_block(codes):
    return (1, 0x1E | sum((c & 0x7F) << (8 + 7 * k) for k, c in enumerate(codes)))


def _py_ordered_set_block(kind, seq=1, signal=False):
    o = 0xF if signal else 0
    low, high = (seq << 24) | (o << 32), (o << 36) | (seq << 56)
    return (1, kind | {0x4B: low, 0x2D: high, 0x55: low | high}[kind])


def _py_edit_octet(self, index, offset, value):
    rec = self.frames[index]
    pos = rec["s_lane"] + offset
    b, lane = rec["s_block"] + pos // 8, pos % 8
    header, payload = self.blocks[b]
    assert header == 2 or (payload & 0xFF in (0x78, 0x33, 0x66) and lane >= 1)
    shift = 8 * lane
    self.blocks[b] = (header, (payload & ~(0xFF << shift) & _M64) | (value << shift))


def _py_edit_lanes(self, block, lanes):
    header, p = self.blocks[block]  # only use: an ordered set over a lane-4 start block
    assert p & 0xFF == 0x33 and lanes == _line.ordered_set(1)
    self.blocks[block] = (1, (p & ~((1 << 40) - 1)) | (0x1 << 24) | 0x66)


def _stimulus():
    """Every case's stimulus as bytes: a receive case's unscrambled blocks, line, the serdes
    clocks a cursor cuts from it, its slips and frames; a transmit case's frames."""
    adapter = SimpleNamespace(max_frame_length=1518, ber_window_blocks=19531)
    out = {}
    for c in CASES:
        if c.kind == "tx":
            out[c.name] = repr(c.build(adapter)).encode()
            continue
        lb = c.build(adapter)
        line, slips = lb.line()
        cursor = _line.Cursor(line, slips)
        units = [cursor.take() for _ in range(cursor.left() - 2)]
        out[c.name] = repr((lb.blocks, line, units, sorted(slips.items()), lb.frames)).encode()
    return out


def test_every_cases_line_is_the_python_it_replaced_bit_for_bit(monkeypatch):
    model = _stimulus()
    idle = [(1, 0x1E)]
    assert _line.IDLE == _py_control_block([0] * 8) == idle[0]
    assert _line.EBLOCK == _py_control_block([0x1E] * 8)
    for state in (None, 0, 0x2AAAAAAAAAAAAAA, _M58):
        assert _line.scramble(idle * 300, state) == _py_scramble(idle * 300, state)
    monkeypatch.setattr(_line, "scramble", _py_scramble)
    monkeypatch.setattr(_cases, "control_block", _py_control_block)
    monkeypatch.setattr(_cases, "ordered_set_block", _py_ordered_set_block)
    monkeypatch.setattr(_line.LineBuilder, "edit_octet", _py_edit_octet)
    monkeypatch.setattr(_line.LineBuilder, "edit_lanes", _py_edit_lanes)
    python = _stimulus()
    assert len(model) == len(CASES) == 22
    for name in model:
        assert model[name] == python[name], name

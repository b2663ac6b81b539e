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
# The cases, their stimulus and their demands live in the engine (engine/src/conformance/;
# Python's random draws reproduced there). Below, the Python they replaced, kept as the oracle
# (conformance_reference.py: Python's random, scrambler, block formats and line builder):
# every case's line, built once each way, must be bit for bit the same.

import conformance_reference as ref  # noqa: E402

from baser.conformance import _line  # noqa: E402

_M58 = (1 << 58) - 1


def _units(line, slips):
    cursor = _line.Cursor(line, slips)
    return [cursor.take() for _ in range(cursor.left() - 2)]


def _engine(c, adapter):
    """A case's stimulus as the catalogue takes it from the engine: a receive case's
    unscrambled blocks, line, the serdes clocks a cursor cuts from it, its slips and frames; a
    transmit case's frames."""
    if c.kind == "tx":
        frames, aborts = c.build(adapter)
        return repr(([bytes(f) for f in frames], aborts)).encode()
    lb = c.build(adapter)
    line, slips = lb.line()
    frames = [(r["frame"], r["s_block"], r["s_lane"], r["t_block"], r["t_lane"]) for r in lb.frames]
    return repr((lb.blocks, line, _units(line, slips), sorted(slips.items()), frames)).encode()


def _reference(c, adapter):
    """The same, built by the Python the engine's cases replaced."""
    if c.kind == "tx":
        frames, aborts = ref.BUILDERS[c.name](adapter)
        return repr(([bytes(f) for f in frames], aborts)).encode()
    lb = ref.BUILDERS[c.name](adapter)
    line, slips = lb.line()
    frames = [(bytes(r["frame"]), r["s_block"], r["s_lane"], r["t_block"], r["t_lane"]) for r in lb.frames]
    return repr((lb.blocks, line, _units(line, slips), sorted(slips.items()), frames)).encode()


def test_every_cases_line_is_the_python_it_replaced_bit_for_bit():
    idle = [(1, 0x1E)]
    assert _line.IDLE == ref.IDLE == idle[0]
    for state in (None, 0, 0x2AAAAAAAAAAAAAA, _M58):
        assert _line.scramble(idle * 300, state) == ref.scramble(idle * 300, state)
    assert [c.name for c in CASES] == list(ref.BUILDERS) and len(CASES) == 22
    for adapter in (SimpleNamespace(max_frame_length=1518, ber_window_blocks=19531),
                    SimpleNamespace(max_frame_length=9018, ber_window_blocks=300)):
        for c in CASES:
            assert _engine(c, adapter) == _reference(c, adapter), c.name


def test_the_catalogue_table_is_the_engines():
    by_name = {c.name: c for c in CASES}
    assert by_name["rx-hi-ber-16"].expect == {"hi_ber": (False, True, False)}
    assert by_name["rx-hi-ber-16"].standard_ber_timer
    assert not by_name["rx-lock-loss"].counters
    assert by_name["rx-link-fault"].needs == ("status.local_fault", "status.remote_fault",
                                              "serdes_rx", "rx_axis")
    assert by_name["tx-abort"].build(SimpleNamespace(max_frame_length=1518,
                                                     ber_window_blocks=19531))[1] == {2}

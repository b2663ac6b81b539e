"""baser.conformance without a simulator: the receive judge's pairing (missing and extra
frames, a PHY-only top), the cases a PHY-only adapter runs, the shipped waivers."""

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

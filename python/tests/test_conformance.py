"""baser.conformance without a simulator: the engine's receive verdict through the binding, the
cases a PHY-only adapter runs, the shipped waivers, every case's stimulus built on the model
against the Python it replaced."""

from types import SimpleNamespace

import pytest

from baser.conformance import CASES, cases_at, load_waivers, standard_ber_window, waivers


# The receive verdict is the engine's (engine/src/conformance/judge.rs, whose unit tests hold
# the pairing rules: missing and extra frames, bad frames delivered good or flagged, levels).
# Here: the binding on real cases.

from baser import _baser  # noqa: E402


def _verdict(name, frames=(), status=None, **kw):
    return _baser.conformance_verdict(name, (list(frames), {}, status or {}, {}), **kw)


def test_a_phy_only_top_that_says_nothing_has_no_divergence():
    assert _verdict("rx-lock-loss", has_frames=False) == []


def test_a_dut_that_delivers_nothing_misses_every_good_frame():
    out = _verdict("rx-lock-loss")
    assert len(out) == 1 and "frame 1" in out[0] and "delivered nothing" in out[0], out


def test_a_status_level_that_never_moves_is_the_first_divergence():
    out = _verdict("rx-lock-loss", status={"block_lock": [(0, False)]}, has_frames=False)
    assert out == ["block_lock: the DUT went low; the model's receiver low -> high -> low -> high"], out


def test_status_only_cases_need_no_mac():
    no_mac = [c.name for c in CASES if "rx_axis" not in c.needs and "tx_axis" not in c.needs]
    assert no_mac == ["rx-hi-ber-15", "rx-hi-ber-16", "rx-hi-ber-96", "rx-hi-ber-97",
                      "rx-lock-loss", "rx-bit-slip", "rx-prbs31", "tx-prbs31"]
    pattern = {c.name: c.needs for c in CASES if c.pattern}
    assert pattern == {"rx-prbs31": ("serdes_rx", "prbs31.rx_enable", "prbs31.rx_errors"),
                       "tx-prbs31": ("serdes_tx", "prbs31.tx_enable")}


def _prbs31(n, inverted=False, state=0x7FFFFFFF):
    """n stream bits of PRBS31 from a 31-bit state (bit 30 the newest), as a list of bits:
    written from the polynomial alone, b(n) = b(n-28) ^ b(n-31) (49.2.8)."""
    hist = [(state >> k) & 1 for k in range(31)]  # hist[k] = b(n-31+k)
    out = []
    for _ in range(n):
        b = hist[3] ^ hist[0]
        hist = hist[1:] + [b]
        out.append(b ^ int(inverted))
    return out


def _blocks(bits):
    """66-bit blocks (header, payload) of a bit list, bit 0 first."""
    out = []
    for k in range(0, len(bits) - 65, 66):
        w = sum(b << i for i, b in enumerate(bits[k:k + 66]))
        out.append((w & 3, w >> 2))
    return out


def test_the_rx_prbs31_run_is_prbs31_with_isolated_flips_counted_three_times():
    from baser import _baser
    for inverted in (False, True):
        run = _baser.conformance_pattern("rx-prbs31", inverted=inverted)
        on, off = run["enable"]
        start, until = run["window"]
        assert on < start < until < off
        pattern = run["units"][200:200 + 1500]
        want = _blocks(_prbs31(66 * 1500, inverted))
        flipped = [(k, i) for k, (a, b) in enumerate(zip(pattern, want)) if a != b
                   for i in range(66) if ((a[0] | a[1] << 2) ^ (b[0] | b[1] << 2)) >> i & 1]
        assert [(200 + k, i) for k, i in flipped] == [tuple(e) for e in run["errors"]]
        assert len(flipped) == 12 and run["expected_errors"] == 36
        assert all(start <= 200 + k < until for k, _ in flipped)
        v = _baser.conformance_pattern_verdict("rx-prbs31", inverted=inverted, counted=36)
        assert v == []
    short = _baser.conformance_pattern_verdict("rx-prbs31", counted=34)
    assert "counted 34" in short[0] and "sync header" in short[1], short


def test_the_tx_prbs31_verdict_takes_prbs31_and_names_a_fixed_header():
    from baser import _baser
    run = _baser.conformance_pattern("tx-prbs31", inverted=True)
    on, off = run["enable"]
    idle = run["units"]
    good = idle[:on + 3] + _blocks(_prbs31(66 * (off - on), True, state=0x1234567)) + idle[off + 3:]
    assert _baser.conformance_pattern_verdict("tx-prbs31", inverted=True, line=good) == []
    other = _baser.conformance_pattern_verdict("tx-prbs31", inverted=False, line=good)
    assert "prbs31_inverted to True" in other[1], other
    fixed = [(2, p) for _, p in good]
    v = _baser.conformance_pattern_verdict("tx-prbs31", inverted=True, line=fixed)
    assert "every sync header is 2" in v[-1], v
    with pytest.raises(ValueError, match="give counted="):
        _baser.conformance_pattern_verdict("tx-prbs31")
    with pytest.raises(ValueError, match="not a test-pattern case"):
        _baser.conformance_pattern("rx-frames")


class _Sig:
    """A stand-in for a cocotb handle: only its width is read."""

    def __init__(self, width):
        self.width = width

    def __len__(self):
        return self.width


def _fake_dut(xgmii_width=64, axis=False):
    names = {"rx_clk": 1, "tx_clk": 1, "rx_rst": 1, "tx_rst": 1, "serdes_rx_data": 64,
             "serdes_rx_hdr": 2, "serdes_rx_bitslip": 1, "serdes_tx_data": 64,
             "serdes_tx_hdr": 2, "xgmii_rxd": xgmii_width, "xgmii_rxc": xgmii_width // 8,
             "xgmii_txd": xgmii_width, "xgmii_txc": xgmii_width // 8}
    if axis:
        names.update({f"rx_axis_{f}": 1 for f in ("tdata", "tkeep", "tvalid", "tlast", "tuser")})
    return SimpleNamespace(**{k: _Sig(w) for k, w in names.items()})


class _Param:
    def __init__(self, value):
        self.value = value


def test_a_ready_adapter_maps_prbs31_only_when_the_phy_was_built_with_it():
    from baser.conformance import verilog_ethernet

    names = ("cfg_rx_prbs31_enable", "cfg_tx_prbs31_enable", "rx_error_count", "rx_block_lock",
             "rx_high_ber")
    dut = _fake_dut()
    for n in names:
        setattr(dut, n, _Sig(7 if n == "rx_error_count" else 1))
    hidden = verilog_ethernet(dut)  # no PRBS31_ENABLE visible: the pattern cases skip, and say why
    assert hidden.has(["prbs31.rx_enable"]) == "prbs31.rx_enable"
    assert "PRBS31_ENABLE parameter is not visible" in hidden.prbs31_missing
    dut.PRBS31_ENABLE = _Param(0)
    assert verilog_ethernet(dut).prbs31_missing.startswith("PRBS31_ENABLE is 0; build it with")
    dut.PRBS31_ENABLE = _Param(1)
    built = verilog_ethernet(dut)
    assert built.has(["serdes_rx", "prbs31.rx_enable", "prbs31.rx_errors"]) is None
    assert built.prbs31_inverted and built.prbs31_errors == "per_clock"
    assert built.prbs31_missing is None
    with pytest.raises(ValueError, match="prbs31_errors `count`"):
        verilog_ethernet(dut, prbs31_errors="count")


def test_a_phy_only_adapter_reads_and_drives_its_xgmii_for_frames():
    from baser.conformance import Adapter

    phy = dict(tx_axis=None, rx_axis=None, rx_xgmii=("xgmii_rxd", "xgmii_rxc"),
               tx_xgmii=("xgmii_txd", "xgmii_txc"))
    a = Adapter(_fake_dut(), **phy)
    # XGMII carries the FCS; the cases of frames out and in both run.
    assert a.rx_fcs_stripped is False
    assert a.has(["serdes_rx", "rx_axis"]) is None and a.has(["serdes_tx", "tx_axis"]) is None
    ran = [c.name for c in cases_at("10g") if a.has(c.needs) is None]
    assert "rx-frames" in ran and "rx-ordered-set-66" in ran and "rx-link-fault" not in ran
    assert "tx-lengths" in ran and "tx-dic" in ran
    for side in ("rx", "tx"):
        with pytest.raises(ValueError, match=f"{side}_xgmii .* expected a 64-bit XGMII"):
            Adapter(_fake_dut(32), **{**phy, f"{'tx' if side == 'rx' else 'rx'}_xgmii": None})
    with pytest.raises(ValueError, match="not both"):
        Adapter(_fake_dut(axis=True), **{**phy, "rx_axis": "rx_axis"})
    # Without the XGMII a PHY-only top runs only the status cases, as before.
    none = Adapter(_fake_dut(), **{**phy, "rx_xgmii": None, "tx_xgmii": None})
    assert none.has(["rx_axis"]) == "rx_axis" and none.has(["tx_axis"]) == "tx_axis"
    assert (a.top, none.top) == ("phy", "mac+phy")


def test_a_mac_only_adapter_takes_the_line_as_xgmii():
    from baser.conformance import Adapter

    mac = Adapter(_fake_dut(axis=True), serdes_rx=None, bitslip=None, serdes_tx=None,
                  tx_axis=None, rx_xgmii=("xgmii_rxd", "xgmii_rxc"),
                  tx_xgmii=("xgmii_txd", "xgmii_txc"))
    # Its XGMII stands for the serdes: the frame cases run, the PCS status ones do not.
    assert mac.top == "mac" and mac.rx_fcs_stripped is True
    ran = [c.name for c in cases_at("10g") if mac.has(c.needs) is None]
    assert "rx-frames" in ran and "rx-ifg" in ran
    assert "rx-lock-loss" not in ran and "rx-hi-ber-16" not in ran
    # The model's PCS receiver decodes a case's line into one transfer a block ...
    words = _baser.conformance_xgmii("rx-frames")
    assert len(words) > 4000 and all(0 <= c <= 0xFF for _, c in words)
    assert (0x0707070707070707, 0xFF) in words and any(c == 0 for _, c in words)
    # ... and its transmitter puts transfers on a line the receive model reads back.
    line = _baser.conformance_line_of_xgmii(words)
    assert len(line) == len(words) and {h for h, _ in line} <= {1, 2}


# --------------------------------------------------------------------------- the rate
# At 25G the catalogue has rx-hi-ber-96/97 (97 invalid headers in the window) for the 10G
# rx-hi-ber-15/16, and the model's receiver runs at 25G with the DUT's window.

def _at(rate, window=None):
    return SimpleNamespace(max_frame_length=1518, rate=rate,
                           ber_window_blocks=window or standard_ber_window(rate))


def test_each_rate_has_its_ber_cases():
    ten, twenty_five = ([c.name for c in cases_at(r)] for r in ("10g", "25g"))
    assert len(ten) == len(twenty_five) == 25
    assert set(ten) - set(twenty_five) == {"rx-hi-ber-15", "rx-hi-ber-16"}
    assert set(twenty_five) - set(ten) == {"rx-hi-ber-96", "rx-hi-ber-97"}
    assert standard_ber_window("25g") == 781250 and standard_ber_window("10g") == 19531


def test_a_25g_case_is_judged_by_the_25g_monitor_in_the_dut_window():
    # a DUT whose hi_ber never moves fails rx-hi-ber-97 (the model's 25G monitor trips) and
    # passes rx-hi-ber-96; judged by a 10G model the 96 would trip: the rate is the model's
    low = {"hi_ber": [(0, False)]}
    kw = dict(has_frames=False, ber_window_blocks=1000)
    out = _verdict("rx-hi-ber-97", status=low, rate="25g", **kw)
    assert out == ["hi_ber: the DUT went low; the model's receiver low -> high -> low"], out
    assert _verdict("rx-hi-ber-96", status=low, rate="25g", **kw) == []


def test_bad_settings_and_other_rates_cases_are_named():
    by_name = {c.name: c for c in CASES}
    why = by_name["rx-hi-ber-16"].skip(_at("25g", 1000))
    assert "10g case" in why and "rx-hi-ber-96, rx-hi-ber-97" in why, why
    assert "too short" in by_name["rx-hi-ber-97"].skip(_at("25g", 500))
    assert by_name["rx-hi-ber-97"].skip(_at("25g", 1000)) is None
    with pytest.raises(ValueError, match="rate: unknown rate `40g`"):
        by_name["rx-frames"].skip(_at("40g", 1000))
    with pytest.raises(ValueError, match="ber_window_blocks: 0 blocks"):
        by_name["rx-frames"].skip(SimpleNamespace(max_frame_length=1518, rate="25g",
                                                  ber_window_blocks=0))
    with pytest.raises(ValueError, match="unknown rate"):
        cases_at("40g")


def test_shipped_waivers_name_catalogue_cases():
    names = {c.name for c in CASES}
    for rtl in ("verilog-ethernet", "taxi"):
        for top in ("mac+phy", "phy", "mac"):
            w = load_waivers(waivers(rtl, top))
            assert w and set(w) <= names and all(len(r) > 40 for r in w.values())
        # a PHY's frames meet the model's MAC: none of the MAC's waivers is its; a MAC-only
        # top has no PCS: none of the PCS's is its
        assert set(load_waivers(waivers(rtl, "phy"))) == {"rx-lock-loss", "rx-bit-slip"}
        assert not {"rx-lock-loss", "rx-bit-slip"} & set(load_waivers(waivers(rtl, "mac")))
    with pytest.raises(ValueError, match="top `mac-only`"):
        waivers("taxi", "mac-only")


# --------------------------------------------------------------------------- the stimulus
# The cases, their stimulus and their demands live in the engine (engine/src/conformance/;
# Python's random draws reproduced there). Below, the Python they replaced, kept as the oracle
# (conformance_reference.py: Python's random, scrambler, block formats and line builder):
# every case's line, built once each way, must be bit for bit the same.

import conformance_reference as ref  # noqa: E402

from baser.conformance import _line  # noqa: E402

_M58 = (1 << 58) - 1


def _units(cursor):
    return [cursor.take() for _ in range(cursor.left() - 2)]


def _engine(c, adapter):
    """A case's stimulus as the catalogue takes it from the engine: a receive case's
    unscrambled blocks, line, the serdes clocks the engine's cursor cuts from it, its slips and
    frames; a transmit case's frames."""
    if c.kind == "tx":
        frames, aborts = c.build(adapter)
        return repr(([bytes(f) for f in frames], aborts)).encode()
    lb = c.build(adapter)
    line, slips = lb.line()
    frames = [(r["frame"], r["s_block"], r["s_lane"], r["t_block"], r["t_lane"]) for r in lb.frames]
    return repr((lb.blocks, line, _units(_line.Cursor(line, slips)), sorted(slips.items()),
                 frames)).encode()


def _reference(c, adapter):
    """The same, built by the Python the engine's cases replaced."""
    if c.kind == "tx":
        frames, aborts = ref.BUILDERS[c.name](adapter)
        return repr(([bytes(f) for f in frames], aborts)).encode()
    lb = ref.BUILDERS[c.name](adapter)
    line, slips = lb.line()
    frames = [(bytes(r["frame"]), r["s_block"], r["s_lane"], r["t_block"], r["t_lane"]) for r in lb.frames]
    return repr((lb.blocks, line, _units(ref.Cursor(line, slips)), sorted(slips.items()),
                 frames)).encode()


def test_every_cases_line_is_the_python_it_replaced_bit_for_bit():
    idle = [(1, 0x1E)]
    assert _line.IDLE == ref.IDLE == idle[0]
    for state in (None, 0, 0x2AAAAAAAAAAAAAA, _M58):
        assert _line.scramble(idle * 300, state) == ref.scramble(idle * 300, state)
    # the oracle is the 10G catalogue's, before tx-link-fault (its receive line is the engine's)
    ten = [c for c in cases_at("10g") if c.name != "tx-link-fault" and not c.pattern]
    assert [c.name for c in ten] == list(ref.BUILDERS) and len(ten) == 22
    for adapter in (SimpleNamespace(max_frame_length=1518, ber_window_blocks=19531),
                    SimpleNamespace(max_frame_length=9018, ber_window_blocks=300)):
        for c in ten:
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
    assert by_name["tx-abort"].receive_line() is None
    assert by_name["rx-frames"].receive_line() is None


def test_tx_link_fault_drives_its_receive_line_and_judges_the_reaction():
    c = next(c for c in CASES if c.name == "tx-link-fault")
    assert c.kind == "tx" and c.needs == ("serdes_rx", "serdes_tx", "tx_axis")
    frames, aborts = c.build(SimpleNamespace(max_frame_length=1518, ber_window_blocks=19531))
    assert len(frames) == 40 and aborts == set()
    receive = c.receive_line()
    assert len(receive) == 500 + 150 + 300 + 150 + 300
    # as sent: scrambled; the idles that follow continue its scrambler (bench's generator)
    from baser.conformance._bench import _receive_line
    gen = _receive_line(receive)
    given = [next(gen) for _ in range(len(receive) + 3)]
    assert given[:len(receive)] == receive
    state = None
    plain = [_line.IDLE] * 3
    assert given[len(receive):] == _line.scramble(plain, receive[-1][1] >> 6)[0]
    # a DUT that sends idles throughout: held off right, but every frame missing
    idle_line = _line.scramble([_line.IDLE] * 1400, state)[0]
    div = _baser.conformance_tx_verdict([bytes(f) for f in frames], [], idle_line,
                                        receive=receive, line_start=200)
    assert any("while its receiver saw Local Fault" in d and "Remote Fault" in d for d in div)
    assert any(d.startswith("frame 0 (") and "missing" in d for d in div), div
    with pytest.raises(ValueError, match="aborts with a receive line"):
        _baser.conformance_tx_verdict([bytes(frames[0])], [0], idle_line, receive=receive)


# --------------------------------------------------------------------------- coverage
# The report's coverage is the engine's functional coverage bins (``baser coverage``) of the
# stimuli the run drove: the cases not skipped, at the DUT's rate and window.

def test_the_reports_coverage_is_the_engines_bins_of_the_cases_run():
    from baser.conformance import Result, _coverage

    by_name = {c.name: c for c in CASES}
    adapter = _at("25g", 1000)

    def cov(*verdicts):
        return _coverage([Result(by_name[n], v, [], 0.0) for n, v in verdicts], adapter)

    frames = cov(("rx-frames", "pass"), ("rx-hi-ber-97", "skipped"))
    ber = cov(("rx-frames", "fail"), ("rx-hi-ber-97", "pass"))
    lock = {g["name"]: g for g in ber["groups"]}["lock_and_ber"]
    assert "hi_ber rose (Fig. 49-15 HI_BER)" not in lock["holes"]
    assert "hi_ber rose (Fig. 49-15 HI_BER)" in {g["name"]: g for g in frames["groups"]}[
        "lock_and_ber"]["holes"]
    assert 0 < frames["percent"] < ber["percent"] < 100
    assert all(g["covered"] + len(g["holes"]) == g["bins"] for g in ber["groups"])

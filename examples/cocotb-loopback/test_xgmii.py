"""cocotb tests of baser's XgmiiSource / XgmiiSink against cocotbext-eth's, on loopback.v.

test_source_equals_cocotbext: baser's XgmiiSource (the MAC model) and cocotbext-eth's
XgmiiSource get the same frames and settings and drive two ports on the same clock: their
transfers must be equal clock for clock (preamble, SFD, FCS, IFG, deficit idle count,
lane-4 starts), for DIC on, DIC off and force_offset_start; the frame times they stamp too.
test_sink_equals_cocotbext: both streams come back through the pipeline into baser's
XgmiiSink and cocotbext-eth's: the same frames, start lanes and times.
test_narrow_xgmii: a 32-bit XGMII (a 64-bit transfer over two clocks): baser's source to
baser's sink, frames equal, transfers equal to the 64-bit source's.
test_ordered_sets: set_seq_os / set_sig_os fill idle transfers as cocotbext-eth's source does
(equal transfers), and baser's sink reports the last one with get_os as cocotbext-eth's does.
test_reset_abandons_the_frame_under_way: reset in the middle of a frame: it is flushed (as
cocotbext-eth does) and the frames queued after it still go out whole.
"""

import random
import warnings

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge, with_timeout
from cocotbext.eth import XgmiiFrame
from cocotbext.eth import XgmiiSink as RefSink
from cocotbext.eth import XgmiiSource as RefSource

from baser import XgmiiSink, XgmiiSource

warnings.filterwarnings("ignore", category=DeprecationWarning, module="cocotbext")

PERIOD_NS = 6.4


def start_clock(dut):
    try:
        clock = Clock(dut.clk, PERIOD_NS, unit="ns")  # cocotb 2
    except TypeError:
        clock = Clock(dut.clk, PERIOD_NS, units="ns")  # cocotb 1.9
    cocotb.start_soon(clock.start())


def payloads(seed, n):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        length = rng.choice([rng.randint(60, 100), rng.randint(60, 1500)])
        out.append(bytes([i & 0xFF]) + rng.randbytes(length - 1))
    return out


def value(sig):
    try:
        return int(sig.value)
    except ValueError:
        return -1


async def record(dut, ports, n):
    """(data, ctrl) of each port for n clocks."""
    seen = [[] for _ in ports]
    for _ in range(n):
        await RisingEdge(dut.clk)
        for s, (d, c) in zip(seen, ports):
            s.append((value(d), value(c)))
    return seen


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"clock {i}: baser {x[1]:02x} {x[0]:016x}, cocotbext-eth {y[1]:02x} {y[0]:016x}"
    return None


@cocotb.test()
async def test_source_equals_cocotbext(dut):
    start_clock(dut)
    for setting in ("dic", "no-dic", "force-offset-start", "ifg-16"):
        ours = XgmiiSource(dut.xa_d, dut.xa_c, dut.clk)
        ref = RefSource(dut.xb_d, dut.xb_c, dut.clk)
        for s in (ours, ref):
            s.enable_dic = setting != "no-dic"
            s.force_offset_start = setting == "force-offset-start"
            s.ifg = 16 if setting == "ifg-16" else 12
        frames = payloads(len(setting), 40)
        sent = ([], [])
        for f in frames:
            ours.send_nowait(XgmiiFrame.from_payload(f, tx_complete=sent[0].append))
            ref.send_nowait(XgmiiFrame.from_payload(f, tx_complete=sent[1].append))
        a, b = await record(dut, [(dut.xa_d, dut.xa_c), (dut.xb_d, dut.xb_c)], 40 * 200)
        assert ours.idle() and ref.idle()
        diff = first_difference(a, b)
        assert diff is None, f"{setting}: {diff}"
        assert len(sent[0]) == len(sent[1]) == len(frames)
        for x, y in zip(*sent):
            assert (x.start_lane, x.sim_time_start, x.sim_time_sfd, x.sim_time_end) == (
                y.start_lane, y.sim_time_start, y.sim_time_sfd, y.sim_time_end), setting
        if setting == "force-offset-start":
            assert all(x.start_lane == 4 for x in sent[0])
        else:
            assert {x.start_lane for x in sent[0]} == {0, 4}
        ours._run_cr.kill() if cocotb.__version__.startswith("1.") else ours._run_cr.cancel()
        ref._run_cr.kill() if cocotb.__version__.startswith("1.") else ref._run_cr.cancel()
        await ClockCycles(dut.clk, 4)


@cocotb.test()
async def test_sink_equals_cocotbext(dut):
    start_clock(dut)
    # one stream (cocotbext-eth's source) into both sinks: the port and its pipelined copy
    src = RefSource(dut.xb_d, dut.xb_c, dut.clk)
    ours = XgmiiSink(dut.xb_qd, dut.xb_qc, dut.clk)
    ref = RefSink(dut.xb_qd, dut.xb_qc, dut.clk)
    frames = payloads(7, 30)
    for f in frames:
        src.send_nowait(XgmiiFrame.from_payload(f))
    bad = XgmiiFrame.from_payload(frames[0])
    bad.data[20] ^= 0x01  # a frame whose FCS no longer matches
    src.send_nowait(bad)
    got = []
    for _ in range(len(frames) + 1):
        x = await with_timeout(ours.recv(), 1, "ms")
        y = await with_timeout(ref.recv(), 1, "ms")
        got.append((x, y))
    for i, (x, y) in enumerate(got):
        assert bytes(x.data) == bytes(y.data), f"frame {i}"
        assert x.ctrl == y.ctrl
        assert (x.start_lane, x.sim_time_sfd, x.sim_time_end) == (
            y.start_lane, y.sim_time_sfd, y.sim_time_end), f"frame {i}"
        assert x.check_fcs() == y.check_fcs() == (i < len(frames))
    assert [x.baser_class for x, _ in got] == ["ok"] * len(frames) + ["fcs_error"]
    summary = ours.finish()
    assert summary["frames"]["by_class"]["fcs_error"] == 1


@cocotb.test()
async def test_narrow_xgmii(dut):
    start_clock(dut)
    wide = XgmiiSource(dut.xa_d, dut.xa_c, dut.clk)
    narrow = XgmiiSource(dut.x32_d, dut.x32_c, dut.clk)
    sink = XgmiiSink(dut.x32_qd, dut.x32_qc, dut.clk)
    assert narrow.byte_lanes == 4 and sink.byte_lanes == 4
    frames = payloads(11, 20)
    for f in frames:
        wide.send_nowait(XgmiiFrame.from_payload(f))
        narrow.send_nowait(XgmiiFrame.from_payload(f))
    a, b = await record(dut, [(dut.xa_d, dut.xa_c), (dut.x32_d, dut.x32_c)], 20 * 200 * 2)
    # two 32-bit clocks carry what one 64-bit clock carries (the wide source runs ahead);
    # both start driving at the first edge after they were made
    pairs = [(b[i][0] | b[i + 1][0] << 32, b[i][1] | b[i + 1][1] << 4) for i in range(1, len(b) - 1, 2)]
    assert pairs == a[1 : 1 + len(pairs)]
    got = [await with_timeout(sink.recv(), 1, "ms") for _ in frames]
    assert [bytes(g.get_payload()) for g in got] == frames
    assert all(g.start_lane == 0 and g.check_fcs() for g in got)


@cocotb.test()
async def test_ordered_sets(dut):
    start_clock(dut)
    ours = XgmiiSource(dut.xa_d, dut.xa_c, dut.clk)
    ref = RefSource(dut.xb_d, dut.xb_c, dut.clk)
    sink = XgmiiSink(dut.xa_qd, dut.xa_qc, dut.clk)
    ref_sink = RefSink(dut.xb_qd, dut.xb_qc, dut.clk)
    for s in (ours, ref):
        s.set_seq_os(0x000001)  # local fault
    for f in payloads(17, 5):
        ours.send_nowait(XgmiiFrame.from_payload(f))
        ref.send_nowait(XgmiiFrame.from_payload(f))
    a, b = await record(dut, [(dut.xa_d, dut.xa_c), (dut.xb_d, dut.xb_c)], 600)
    assert first_difference(a, b) is None, first_difference(a, b)
    assert sum(1 for d, c in a if c == 0x11 and d & 0xFF == 0x9C) > 100
    assert sink.get_os() == ref_sink.get_os() == (1, False)
    assert sink.get_os() == (None, False)  # taken
    for s in (ours, ref):
        s.set_sig_os(0xABCDEF)
    await ClockCycles(dut.clk, 20)
    assert sink.get_os() == ref_sink.get_os() == (0xABCDEF, True)
    # the link fault monitor of the model's RS saw the local fault
    assert sink.status["link_fault"] != "Ok"


@cocotb.test()
async def test_reset_abandons_the_frame_under_way(dut):
    start_clock(dut)
    dut.rx_valid.value = 0
    src = XgmiiSource(dut.xa_d, dut.xa_c, dut.clk, reset=dut.rx_valid)
    sink = XgmiiSink(dut.xa_qd, dut.xa_qc, dut.clk)
    frames = payloads(13, 6)
    long = bytes(1500)
    done = []
    src.send_nowait(XgmiiFrame.from_payload(long, tx_complete=done.append))
    for f in frames:
        src.send_nowait(XgmiiFrame.from_payload(f))
    await ClockCycles(dut.clk, 40)  # the long frame is under way
    assert src.current_frame is not None
    dut.rx_valid.value = 1
    await ClockCycles(dut.clk, 5)
    dut.rx_valid.value = 0
    assert len(done) == 1  # flushed, its tx_complete called
    got = [await with_timeout(sink.recv(), 1, "ms") for _ in range(len(frames) + 1)]
    # the abandoned frame reaches the sink cut short (no /T/ before the reset's zeros)
    assert got[0].baser_class != "ok"
    assert [bytes(g.get_payload()) for g in got[1:]] == frames, [
        (g.baser_class, len(g.get_payload())) for g in got]

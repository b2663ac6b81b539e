"""cocotb test bench for loopback.v with baser's drop-in serdes models.

BaseRSerdesSource (the engine's MAC, PCS encoder and scrambler, one block per clock) drives
the pipeline's input; BaseRSerdesSink (block lock from any bit offset, descrambler, Clause 49
receive state machine, MAC) takes its output. Written as a verilog-ethernet test bench is,
with `from baser import ...` where it had its local baser.py.

test_loopback: every frame (60..1514 octets, a 9000 and a 9214-octet payload) comes back
equal, with a good FCS, and each one's SFD arrives STAGES + 1 clocks after it was sent
(sim_time_sfd on both sides); the PCS saw no error.
test_bit_offset: the source's stream moved by 29 bits: the sink finds the boundary, and
no frame is lost to block lock.
test_lane4_starts_and_frame_times: force_offset_start puts every /S/ in lane 4 and the frames
come back; with frame_times="lane" (taxi's convention: the edge of the block plus a lane's
share of the period) a lane-4 start is half a period after its edge, and the first octet
after the SFD one period after the /S/. (test_loopback checks verilog-ethernet's, the
default: the edges of the blocks holding the /S/ and the SFD.)
test_narrow_interface: the same frames over a 32-bit interface (a block over two clocks,
hdr_valid with the first) with data_valid.
test_gearbox_stalls: taxi's gearbox sequence (66 clocks, 2 without a block) on the 64-bit
interface, data_valid low in the stalls; the sink skips them.
test_injected_faults: the source's fault injection (baser encode --inject syntax): a flipped
line bit fails one frame's FCS; an invalid header injected while running shows in the sink's
status with the arrow into RX_E; a slip makes the sink lose lock and find it again.
test_serdes_ordered_sets: set_seq_os fills idle blocks with ordered sets; the sink's get_os,
get_os_match and get_idle_match report them as taxi's sink does.
test_usxgmii_replication: with set_xgmii_rep_count (USXGMII rate replication, 1 and 9) on
both sides the frames come back whole and on time, stretched by the replication.
test_rs_fec_25g: 25GBASE-R with RS-FEC (Clause 108) on both sides, the line 17 bits off:
the frames come back whole, the symbol errors injected are corrected and counted.
test_planted_fault_is_caught: on the build with FAULT_BLOCK (one flipped line bit), exactly
one frame comes back with a bad FCS, and the sink names it; the Scoreboard fails the test
with that frame's first differing octet, where on the good build it passes.
"""

import logging
import os
import random
import warnings

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, with_timeout

try:  # cocotb 2
    from cocotb.simtime import get_sim_time
except ImportError:  # cocotb 1.9
    from cocotb.utils import get_sim_time
from cocotbext.eth import XgmiiFrame

from baser import BaseRSerdesSink, BaseRSerdesSource, Scoreboard

warnings.filterwarnings("ignore", category=DeprecationWarning, module="cocotbext")

PERIOD_NS = 6.4  # 156.25 MHz
STAGES = int(os.environ.get("LOOPBACK_STAGES", "3"))
SEED = int(os.environ.get("LOOPBACK_SEED", "1"))


def start_clock(dut):
    try:
        clock = Clock(dut.clk, PERIOD_NS, unit="ns")  # cocotb 2
    except TypeError:
        clock = Clock(dut.clk, PERIOD_NS, units="ns")  # cocotb 1.9
    cocotb.start_soon(clock.start())


def payloads(rng, n=24):
    """Frames as a MAC client hands them over: DA, SA, EtherType, payload; no FCS."""
    head = bytes.fromhex("020000000002020000000001") + b"\x88\xb5"
    out = []
    for i in range(n):
        length = {5: 9000, 17: 9214}.get(i, rng.randint(60, 1514))
        out.append(head + i.to_bytes(2, "big") + rng.randbytes(length - len(head) - 2))
    out.append(head + b"\x00" * 46)  # minimum size
    return out


class TB:
    def __init__(self, dut, source=None, sink=None):
        self.dut = dut
        self.log = logging.getLogger("cocotb.tb")
        start_clock(dut)
        self.source = source or BaseRSerdesSource(dut.rx_data, dut.rx_hdr, dut.clk)
        self.sink = sink or BaseRSerdesSink(dut.tx_data, dut.tx_hdr, dut.clk)
        self.sent = []

    def _sent(self, frame):
        self.sent.append(frame)

    async def run(self, frames):
        await ClockCycles(self.dut.clk, 4)
        self.edge = get_sim_time()  # the clock's edges are this plus whole periods
        for f in frames:
            await self.source.send(XgmiiFrame.from_payload(f, tx_complete=self._sent))
        got = []
        for _ in frames:
            got.append(await with_timeout(self.sink.recv(), 2, "ms"))
        await self.source.wait()
        await ClockCycles(self.dut.clk, 8)
        return got


def clean_after_leftovers(pcs):
    """No PCS error but in the first blocks: the pipeline still holds the last STAGES
    blocks of the previous test's stream (another scrambler state) when a test starts."""
    late = [e for e in pcs["e_transitions"] if e["block"] > STAGES + 1]
    assert pcs["invalid_headers"] <= STAGES and not late, pcs
    return pcs


def scoreboard(frames, got):
    """The expected frames and what the sink received, in a baser Scoreboard."""
    sb = Scoreboard(name="loopback", max_frame_length=9218)  # the 9214-octet frames + FCS
    for f in frames:
        sb.expect(f)
    for rx in got:
        sb.push(bytes(rx.get_payload(strip_fcs=False)))
    return sb


@cocotb.test()
async def test_loopback(dut):
    tb = TB(dut)
    frames = payloads(random.Random(SEED))
    got = await tb.run(frames)
    period = round(PERIOD_NS * 1000)  # ps: one sim step is 1 ps here
    for i, (f, tx, rx) in enumerate(zip(frames, tb.sent, got)):
        assert rx.get_payload() == f, f"frame {i} differs"
        assert rx.check_fcs(), f"frame {i}: bad FCS"
        assert rx.ctrl is None and rx.baser_class == "ok"
        assert rx.start_lane == tx.start_lane
        latency = rx.sim_time_sfd - tx.sim_time_sfd
        assert abs(latency - (STAGES + 1) * period) <= 10, f"frame {i}: SFD latency {latency} ps"
        # verilog-ethernet's convention (the default here): the edges of the blocks holding
        # the /S/ and the SFD (the same block for a lane-0 start, the next for lane 4)
        for f in (tx, rx):
            assert (f.sim_time_start - tb.edge) % period == 0
            assert f.sim_time_sfd - f.sim_time_start == (period if f.start_lane == 4 else 0)
    assert tb.sink.empty() and tb.source.idle()
    scoreboard(frames, got).check()  # raises AssertionError on any divergence
    pcs = tb.sink.finish()["pcs"]
    assert pcs["lock_acquired"] is not None
    assert pcs["invalid_headers"] == 0 and pcs["errored_blocks"] == 0, pcs
    assert pcs["link_fault"] == "Ok"


@cocotb.test()
async def test_bit_offset(dut):
    tb = TB(dut)
    tb.source.bit_offset = 29
    frames = payloads(random.Random(SEED + 1), n=8)
    got = await tb.run(frames)
    assert [bytes(rx.get_payload()) for rx in got] == frames
    assert all(rx.check_fcs() for rx in got)
    lock = tb.sink.finish()["pcs"]["lock_acquired"]
    assert lock["bit_offset"] % 66 == 29, lock


@cocotb.test()
async def test_lane4_starts_and_frame_times(dut):
    tb = TB(
        dut,
        BaseRSerdesSource(dut.rx_data, dut.rx_hdr, dut.clk, frame_times="lane"),
        BaseRSerdesSink(dut.tx_data, dut.tx_hdr, dut.clk, frame_times="lane"),
    )
    period = round(PERIOD_NS * 1000)
    frames = payloads(random.Random(SEED + 2), n=12)
    got = await tb.run(frames)
    # Without forcing, both lanes occur; a lane-4 start is half a period after its edge.
    lanes = {tx.start_lane for tx in tb.sent}
    assert lanes == {0, 4}, lanes
    for tx, rx in zip(tb.sent, got):
        for f in (tx, rx):
            phase = (f.sim_time_start - tb.edge) % period
            assert phase == f.start_lane * period // 8, (f.start_lane, phase)
            assert f.sim_time_sfd - f.sim_time_start == period
            assert f.sim_time_end > f.sim_time_sfd
    tb.sent.clear()
    tb.source.force_offset_start = True
    got = await tb.run(frames)
    assert [bytes(rx.get_payload()) for rx in got] == frames
    assert all(tx.start_lane == 4 for tx in tb.sent)
    assert all(rx.start_lane == 4 for rx in got)
    for tx, rx in zip(tb.sent, got):
        assert rx.sim_time_sfd - tx.sim_time_sfd == (STAGES + 1) * period
        assert rx.sim_time_end - tx.sim_time_end == (STAGES + 1) * period
    clean_after_leftovers(tb.sink.finish()["pcs"])


@cocotb.test()
async def test_narrow_interface(dut):
    source = BaseRSerdesSource(
        data=dut.rx_data32, hdr=dut.rx_hdr32, clock=dut.clk,
        data_valid=dut.rx_valid32, hdr_valid=dut.rx_hdr_valid32,
    )
    sink = BaseRSerdesSink(
        data=dut.tx_data32, hdr=dut.tx_hdr32, clock=dut.clk,
        data_valid=dut.tx_valid32, hdr_valid=dut.tx_hdr_valid32,
    )
    assert source.byte_lanes == 4 and sink.byte_lanes == 4
    tb = TB(dut, source, sink)
    period = round(PERIOD_NS * 1000)
    frames = payloads(random.Random(SEED + 3), n=10)
    got = await tb.run(frames)
    assert [bytes(rx.get_payload()) for rx in got] == frames
    assert all(rx.check_fcs() and rx.baser_class == "ok" for rx in got)
    for tx, rx in zip(tb.sent, got):
        assert rx.start_lane == tx.start_lane
        # a block is two clocks: the source times it at its first, the sink at its last
        assert rx.sim_time_sfd - tx.sim_time_sfd == (STAGES + 2) * period
    clean_after_leftovers(tb.sink.finish()["pcs"])


@cocotb.test()
async def test_gearbox_stalls(dut):
    source = BaseRSerdesSource(
        data=dut.rx_data, hdr=dut.rx_hdr, clock=dut.clk, data_valid=dut.rx_valid,
        gbx_cfg=(66, [64, 65]),
    )
    sink = BaseRSerdesSink(dut.tx_data, dut.tx_hdr, dut.clk, data_valid=dut.tx_valid)
    tb = TB(dut, source, sink)
    frames = payloads(random.Random(SEED + 4), n=10)
    got = await tb.run(frames)
    assert [bytes(rx.get_payload()) for rx in got] == frames
    pcs = clean_after_leftovers(tb.sink.finish()["pcs"])
    assert pcs["blocks"] > 66  # the run crossed whole gearbox sequences


@cocotb.test()
async def test_injected_faults(dut):
    tb = TB(dut, BaseRSerdesSource(dut.rx_data, dut.rx_hdr, dut.clk, inject="flip:70000"))
    frames = payloads(random.Random(SEED + 5), n=10)
    got = await tb.run(frames)
    assert tb.source.flipped == [70000]
    # one flipped line bit: one frame's FCS fails (descrambled errors at q, q+39, q+58)
    bad = [rx for f, rx in zip(frames, got) if bytes(rx.get_payload()) != f]
    assert len(bad) == 1 and bad[0].baser_class == "fcs_error", [rx.baser_class for rx in got]
    # an invalid sync header on the next block: counted by the sink in the clock it arrives,
    # with the arrow into RX_E
    before = tb.sink.status["invalid_headers"]
    tb.source.inject("header:0")
    for clock in range(40):
        await ClockCycles(dut.clk, 1)
        st = tb.sink.status
        if st["invalid_headers"] > before:
            break
    tb.log.info("invalid header seen %d clocks after the injection", clock + 1)
    # driven at the next edge, STAGES registers, sampled an edge later; the serial RX chain
    # works on whole 64-bit words, so its status may trail the wire by up to 2 blocks
    assert st["invalid_headers"] == before + 1 and clock + 1 <= STAGES + 4, (clock, st)
    await ClockCycles(dut.clk, 3)  # the decoder decides a block when it sees the next
    st = tb.sink.status
    assert st["last_error"] is not None and "--> RX_E: invalid sync header" in st["last_error"][1], st
    # a slip moves the boundary: the sink loses lock and finds it again, frames come back
    tb.source.inject("slip:10:+7")
    await ClockCycles(dut.clk, 200)
    frames = payloads(random.Random(SEED + 6), n=5)
    got = await tb.run(frames)
    assert [bytes(rx.get_payload()) for rx in got] == frames
    pcs = tb.sink.finish()["pcs"]
    assert len(pcs["lock_losses"]) == 1 and len(pcs["relocks"]) == 1, pcs


@cocotb.test()
async def test_serdes_ordered_sets(dut):
    tb = TB(dut)
    # block lock: the pipeline's reset fill (invalid headers) makes the lock search slip
    # through other offsets first
    await ClockCycles(dut.clk, 300)
    assert tb.sink.status["block_lock"]
    tb.source.set_seq_os(0x000002)  # remote fault
    await ClockCycles(dut.clk, STAGES + 20)
    assert tb.sink.get_os() == (2, False)
    assert tb.sink.get_os() == (None, False)  # taken
    await ClockCycles(dut.clk, 5)
    assert tb.sink.get_os_match() and not tb.sink.get_idle_match()
    tb.source.set_os(None)
    await ClockCycles(dut.clk, STAGES + 20)
    assert tb.sink.get_idle_match() and not tb.sink.get_os_match()
    frames = payloads(random.Random(SEED + 7), n=3)
    got = await tb.run(frames)
    assert [bytes(rx.get_payload()) for rx in got] == frames


@cocotb.test()
async def test_rs_fec_25g(dut):
    """25GBASE-R with Clause 108 RS-FEC on both sides (a short marker period, 16 codewords):
    the source's line is the FEC's, the sink locks on its marker from any offset; 7 and 3
    symbol errors injected in two codewords are corrected and counted."""
    line = dict(rate="25g", fec="rs", rs_marker_period=16)
    source = BaseRSerdesSource(dut.rx_data, dut.rx_hdr, dut.clk, inject=["symbols:2:7", "symbols:5:3"], **line)
    sink = BaseRSerdesSink(dut.tx_data, dut.tx_hdr, dut.clk, **line)
    tb = TB(dut, source, sink)
    tb.source.bit_offset = 17
    frames = payloads(random.Random(SEED + 20), n=6)
    got = await tb.run(frames)
    assert [bytes(rx.get_payload()) for rx in got] == frames
    assert all(rx.check_fcs() and rx.baser_class == "ok" for rx in got)
    fec = tb.sink.finish()["fec"]
    assert fec["lock"]["losses"] == 0 and fec["uncorrected_codewords"] == 0, fec
    assert (fec["corrected_codewords"], fec["corrected_symbols"]) == (2, 10), fec
    held = tb.source.fec["held"]  # 4 block times a marker codeword begun
    assert held >= 4 and held % 4 == 0, tb.source.fec


@cocotb.test()
async def test_usxgmii_replication(dut):
    for rep in (1, 9):  # 5 Gb/s and 1 Gb/s over the 10G line
        tb = TB(dut)
        tb.source.set_xgmii_rep_count(rep)
        tb.sink.set_xgmii_rep_count(rep)
        assert tb.source.get_xgmii_rep_count() == rep
        frames = payloads(random.Random(SEED + 8 + rep), n=4)
        frames = [f[:200] for f in frames]
        got = await tb.run(frames)
        assert [bytes(rx.get_payload()) for rx in got] == frames, rep
        assert all(rx.check_fcs() and rx.baser_class == "ok" for rx in got)
        period = round(PERIOD_NS * 1000)
        for tx, rx in zip(tb.sent, got):
            assert rx.sim_time_sfd - tx.sim_time_sfd == (STAGES + 1) * period, rep
        # the line carried each column rep + 1 times: the frames took that much longer
        span = got[-1].sim_time_end - got[0].sim_time_start
        octets = sum(len(f) + 24 for f in frames)  # preamble, FCS, gap
        assert span >= (rep + 1) * octets // 8 * period * 0.8, (rep, span)


@cocotb.test()
async def test_planted_fault_is_caught(dut):
    tb = TB(dut)
    frames = payloads(random.Random(SEED))
    got = await tb.run(frames)
    bad = [i for i, (f, rx) in enumerate(zip(frames, got)) if rx.get_payload() != f]
    assert len(bad) == 1, f"frames differing: {bad}"
    rx = got[bad[0]]
    assert not rx.check_fcs() and rx.baser_class == "fcs_error"
    tb.log.info("planted fault caught: frame %d, class %s", bad[0], rx.baser_class)
    sb = scoreboard(frames, got)
    try:
        sb.check()
    except AssertionError as e:
        assert f"expected frame {bad[0]}" in str(e) and "first at octet" in str(e), str(e)
        tb.log.info("scoreboard: %s", e)
    else:
        raise AssertionError("the scoreboard passed a corrupted frame")
    summary = tb.sink.finish()
    assert summary["verdict"] == "fail" and summary["frames"]["by_class"]["fcs_error"] == 1

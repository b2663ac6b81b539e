"""Speed of the cocotb models: simulated clock cycles per second of wall time, with baser's
models and with the pure-Python ones, on the same bench (loopback.v: source -> registers ->
sink) and the same frames. A benchmark, not a test: bench.sh runs it and prints the table.

BENCH_MODELS selects the pair:
  serdes-baser      baser.BaseRSerdesSource / BaseRSerdesSink
  serdes-original   the BaseRSerdesSource / BaseRSerdesSink of a test bench's own tb/baser.py
                    (verilog-ethernet's or taxi's), loaded from BENCH_ORIGINAL (a file path)
  xgmii-baser       baser.XgmiiSource / XgmiiSink
  xgmii-cocotbext   cocotbext-eth's XgmiiSource / XgmiiSink
BENCH_FRAMES frames (default 300, 60..1514 octets, seeded) are sent back to back and all
received; the line is printed as `BENCH models clocks seconds clocks_per_second`.
"""

import importlib.util
import os
import random
import time
import warnings

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles
from cocotbext.eth import XgmiiFrame

try:  # cocotb 2
    from cocotb.simtime import get_sim_time
except ImportError:  # cocotb 1.9
    from cocotb.utils import get_sim_time

warnings.filterwarnings("ignore", category=DeprecationWarning, module="cocotbext")

MODELS = os.environ.get("BENCH_MODELS", "serdes-baser")
FRAMES = int(os.environ.get("BENCH_FRAMES", "300"))


def models(dut):
    kind, impl = MODELS.split("-", 1)
    if kind == "serdes":
        if impl == "baser":
            from baser import BaseRSerdesSink as Sink
            from baser import BaseRSerdesSource as Source
        else:
            path = os.environ["BENCH_ORIGINAL"]
            spec = importlib.util.spec_from_file_location("baser_original", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            Source, Sink = mod.BaseRSerdesSource, mod.BaseRSerdesSink
        return Source(dut.rx_data, dut.rx_hdr, dut.clk), Sink(dut.tx_data, dut.tx_hdr, dut.clk)
    if impl == "baser":
        from baser import XgmiiSink as Sink
        from baser import XgmiiSource as Source
    else:
        from cocotbext.eth import XgmiiSink as Sink
        from cocotbext.eth import XgmiiSource as Source
    return Source(dut.xa_d, dut.xa_c, dut.clk), Sink(dut.xa_qd, dut.xa_qc, dut.clk)


@cocotb.test()
async def bench(dut):
    try:
        clock = Clock(dut.clk, 6.4, unit="ns")
    except TypeError:
        clock = Clock(dut.clk, 6.4, units="ns")
    cocotb.start_soon(clock.start())
    source, sink = models(dut)
    rng = random.Random(1)
    frames = [rng.randbytes(rng.randint(60, 1514)) for _ in range(FRAMES)]
    await ClockCycles(dut.clk, 4)
    s0 = get_sim_time("ns")
    t0 = time.perf_counter()
    for f in frames:
        await source.send(XgmiiFrame.from_payload(f))
    for f in frames:
        rx = await sink.recv()
        assert rx.get_payload() == f
    seconds = time.perf_counter() - t0
    n = round((get_sim_time("ns") - s0) / 6.4)
    print(f"BENCH {MODELS} {n} {seconds:.3f} {n / seconds:.0f}", flush=True)

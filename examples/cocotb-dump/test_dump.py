"""cocotb test bench for pcs_tx.v: the dump recipe of docs/user-guide.md section 1, tested.

cocotbext-eth's XgmiiSource drives frames into the PCS; every clock cycle from reset on,
the test writes the PCS's registered outputs to dut.b66 and the XGMII it was given to
dut_in.xgmii, the frames sent (without FCS) to stimulus.pcap, and then runs

    baser check --frames stimulus.pcap --dut dut.b66      (frame level)
    baser check --xgmii dut_in.xgmii --dut dut.b66        (PCS level, bit exact)

test_correct_dut_passes: both must exit 0.
test_planted_fault_fails: run on the DUT built with FAULT_BLOCK >= 0 (one payload bit of
one data block flipped before scrambling); check --frames must exit 1 and name the
corrupted frame and the lane, check --xgmii must exit 1 with exactly one block differing.

The baser binary is $BASER (default: `baser` on PATH). Files go to the test directory
(sim_build/<case>/ with runner.py). Stimulus seed: $DUMP_SEED (default 1).
"""

import logging
import os
import re
import random
import shutil
import struct
import subprocess
import warnings

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.eth import XgmiiFrame, XgmiiSource

# cocotbext-eth 0.1.28 still calls setimmediatevalue(), deprecated in cocotb 2
warnings.filterwarnings("ignore", category=DeprecationWarning, module="cocotbext")

BASER = os.environ.get("BASER", "baser")
SEED = int(os.environ.get("DUMP_SEED", "1"))
N_FRAMES = 40
JUMBO = {11, 27}  # frames of 9000 octets (without FCS)


# ------------------------------------------------------------------ the recipe
async def dump(dut, b66, xgmii):
    """Every clock cycle from reset on: the PCS's registered outputs, and its XGMII input.

    Sampled right at the rising edge, so each line holds the values the edge samples.
    No `# scrambler_state=` line: this RTL does not reset its scrambler, so the state
    before the first block is unknown; baser trains its descrambler on the first block.
    The cycles in reset are written too (`0 0000000000000000`): baser skips and counts
    them as reset fill.
    """
    b66.write("# scrambled\n")
    while True:
        await RisingEdge(dut.clk)
        b66.write(f"{int(dut.encoded_tx_hdr.value):x} {int(dut.encoded_tx_data.value):016x}\n")
        xgmii.write(f"{int(dut.xgmii_txc.value):02x} {int(dut.xgmii_txd.value):016x}\n")


# ------------------------------------------------------------------ helpers
def write_pcap(path, frames):
    """Classic pcap, LINKTYPE_ETHERNET, one record per frame (no FCS)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for n, frame in enumerate(frames):
            f.write(struct.pack("<IIII", n, 0, len(frame), len(frame)))
            f.write(frame)


def make_frames(rng):
    """Frames as a MAC client hands them over: DA, SA, EtherType, payload; no FCS."""
    dst = bytes.fromhex("020000000002")
    src = bytes.fromhex("020000000001")
    frames = []
    for n in range(N_FRAMES):
        length = 9000 if n in JUMBO else rng.randint(60, 1514)
        head = dst + src + b"\x88\xb5" + struct.pack(">I", n)  # local experimental EtherType
        frames.append(head + rng.randbytes(length - len(head)))
    return frames


def baser(dut, *args):
    """Run `baser ARGS`, log its report, return its exit status."""
    exe = shutil.which(BASER)
    assert exe, f"baser binary not found: BASER={BASER!r}"
    proc = subprocess.run([exe, *args], capture_output=True, text=True, check=False)
    dut._log.info("$ baser %s  (exit %d)\n%s%s", " ".join(args), proc.returncode, proc.stdout, proc.stderr)
    return proc.returncode, proc.stdout + proc.stderr


def frame_of_data_block(xgmii_path, k):
    """Index of the frame that holds the k-th all-data XGMII transfer (from 0)."""
    frame, seen = -1, 0
    with open(xgmii_path) as f:
        for line in f:
            ctrl, data = (int(x, 16) for x in line.split())
            if (ctrl & 0x01 and data & 0xFF == 0xFB) or (ctrl & 0x10 and (data >> 32) & 0xFF == 0xFB):
                frame += 1
            elif ctrl == 0:
                if seen == k:
                    return frame
                seen += 1
    raise AssertionError(f"fewer than {k + 1} data transfers in {xgmii_path}")


async def run_traffic(dut):
    """Reset, dump from reset, send the frames with some idle gaps; return the frames."""
    rng = random.Random(SEED)
    frames = make_frames(rng)
    write_pcap("stimulus.pcap", frames)

    cocotb.start_soon(Clock(dut.clk, 6.4, unit="ns").start())  # 156.25 MHz
    source = XgmiiSource(dut.xgmii_txd, dut.xgmii_txc, dut.clk)
    source.log.setLevel(logging.WARNING)  # it logs every frame in full

    dut.rst.value = 1
    await ClockCycles(dut.clk, 2)  # the output registers leave X for their reset value
    with open("dut.b66", "w") as b66, open("dut_in.xgmii", "w") as xgmii:
        dumper = cocotb.start_soon(dump(dut, b66, xgmii))
        await ClockCycles(dut.clk, 8)
        dut.rst.value = 0
        await ClockCycles(dut.clk, 4)

        for frame in frames:
            await source.send(XgmiiFrame.from_payload(frame))
            if rng.random() < 0.2:  # pause the source: an idle gap of some cycles
                await source.wait()
                await ClockCycles(dut.clk, rng.randint(2, 40))
        await source.wait()
        await ClockCycles(dut.clk, 16)  # the last frame leaves the pipeline, idles follow
        assert int(dut.tx_valid.value) == 1
        dumper.cancel()
    return frames


# ------------------------------------------------------------------ tests
@cocotb.test()
async def test_correct_dut_passes(dut):
    """The recipe on a correct PCS: both baser checks pass."""
    assert dut.FAULT_BLOCK.value.to_signed() < 0, "build the DUT without FAULT_BLOCK for this test"
    await run_traffic(dut)

    rc_frames, _ = baser(dut, "check", "--frames", "stimulus.pcap", "--dut", "dut.b66")
    rc_xgmii, _ = baser(dut, "check", "--xgmii", "dut_in.xgmii", "--dut", "dut.b66")
    assert rc_frames == 0, "baser check --frames failed on a correct DUT"
    assert rc_xgmii == 0, "baser check --xgmii failed on a correct DUT"


@cocotb.test()
async def test_planted_fault_fails(dut):
    """The same recipe on a PCS with one flipped payload bit: baser check fails and says where."""
    fault_block = dut.FAULT_BLOCK.value.to_signed()
    fault_lane = dut.FAULT_BIT.value.to_signed() // 8
    assert fault_block >= 0, "build the DUT with FAULT_BLOCK >= 0 for this test"
    await run_traffic(dut)
    frame = frame_of_data_block("dut_in.xgmii", fault_block)

    rc, out = baser(dut, "check", "--frames", "stimulus.pcap", "--dut", "dut.b66")
    assert rc == 1, f"baser check --frames should exit 1 on the planted fault, got {rc}"
    assert "1 corrupted, 0 missing, 0 extra" in out, "the report should count one corrupted frame"
    assert f"FAIL frames: frame {frame} (" in out, f"the report should name frame {frame}"
    assert re.search(rf"first difference at octet \d+: .*lane {fault_lane}\b", out), (
        f"the report should place the difference in lane {fault_lane}"
    )

    # PCS level: exactly the one block with the flipped bit differs (after descrambling)
    rc, out = baser(dut, "check", "--xgmii", "dut_in.xgmii", "--dut", "dut.b66")
    assert rc == 1, f"baser check --xgmii should exit 1 on the planted fault, got {rc}"
    assert re.search(r"blocks compared, 1 differ;", out), "check --xgmii should find one block"

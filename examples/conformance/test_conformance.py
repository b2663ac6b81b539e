# The whole catalogue against a DUT: one adapter, one test function (docs/conformance.md).
import os

import cocotb

from baser.conformance import example_dut, run


@cocotb.test()
async def test_conformance(dut):
    window = os.environ.get("BER_WINDOW")  # the DUT's BER timer in blocks; default the standard's
    rate = os.environ.get("RATE", "10g")  # "25g": a 25GBASE-R DUT
    adapter = example_dut(dut, rate=rate, ber_window_blocks=int(window) if window else None)
    cases = os.environ.get("CASES")  # e.g. "rx-frames,tx-dic"; default: every case
    await run(
        dut,
        adapter,
        cases=cases.split(",") if cases else None,
        waivers=os.environ.get("WAIVERS"),
        report_dir=os.environ.get("REPORT_DIR", "conformance-report"),
    )

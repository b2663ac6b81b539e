# The whole catalogue against a DUT: one adapter, one test function (docs/conformance.md).
import os

import cocotb

from baser.conformance import example_dut, run


@cocotb.test()
async def test_conformance(dut):
    adapter = example_dut(dut, ber_window_blocks=int(os.environ.get("BER_WINDOW", "19531")))
    cases = os.environ.get("CASES")  # e.g. "rx-frames,tx-dic"; default: every case
    await run(
        dut,
        adapter,
        cases=cases.split(",") if cases else None,
        waivers=os.environ.get("WAIVERS"),
        report_dir=os.environ.get("REPORT_DIR", "conformance-report"),
    )

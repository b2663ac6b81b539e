# The catalogue on a MAC-only top (AXI-stream and XGMII, no serdes): the example MAC alone
# (rtl/conf_mac_only.v). Each receive case's line goes into its XGMII input as the model's PCS
# receiver decodes it, its XGMII output onto a line through the model's PCS transmitter, so
# every case runs but those of a PCS's outputs (block lock, hi_ber).
import os

import cocotb

from baser.conformance import Adapter, run


@cocotb.test()
async def test_mac(dut):
    adapter = Adapter(
        dut,
        serdes_rx=None,
        bitslip=None,
        serdes_tx=None,
        rx_xgmii=("xgmii_rxd", "xgmii_rxc"),
        tx_xgmii=("xgmii_txd", "xgmii_txc"),
        status={"local_fault": "rx_local_fault", "remote_fault": "rx_remote_fault"},
        pulses={"bad_frame": "rx_error_bad_frame", "bad_fcs": "rx_error_bad_fcs"},
        counters={"frames_good": "rx_frames_good", "frames_bad": "rx_frames_bad",
                  "fcs_errors": "rx_fcs_errors"},
    )
    cases = os.environ.get("CASES")
    await run(dut, adapter, cases=cases.split(",") if cases else None,
              report_dir=os.environ.get("REPORT_DIR", "conformance-report"))

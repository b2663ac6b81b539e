# The catalogue on a PHY-only top (serdes in and out, XGMII out and in): the example PCS alone
# (rtl/conf_phy.v). Its XGMII output goes through the model's MAC receiver, its XGMII input
# comes from the model's MAC, so every case runs but those of a MAC's outputs (link fault)
# and tx-abort (no abort on an XGMII input).
import os

import cocotb

from baser.conformance import Adapter, run


@cocotb.test()
async def test_phy(dut):
    adapter = Adapter(
        dut,
        rx_axis=None,
        rx_xgmii=("xgmii_rxd", "xgmii_rxc"),
        tx_axis=None,
        tx_xgmii=("xgmii_txd", "xgmii_txc"),
        status={"block_lock": "rx_block_lock", "hi_ber": "rx_high_ber"},
        counters={"errored_blocks": "rx_errored_blocks"},
        prbs31={"rx_enable": "cfg_rx_prbs31_enable", "rx_errors": "rx_error_count",
                "tx_enable": "cfg_tx_prbs31_enable"},
        inputs={"cfg_tx_prbs31_enable": 0, "cfg_rx_prbs31_enable": 0},
    )
    cases = os.environ.get("CASES")
    await run(dut, adapter, cases=cases.split(",") if cases else None,
              report_dir=os.environ.get("REPORT_DIR", "conformance-report"))

// bugs.sv: the correct example DUT, the same built as a 25GBASE-R PCS (conf_G25_dut: the 25G
// BER monitor, 97 invalid headers, in a 1000-block window) on the 25G suite (+suite25=DIR),
// and its eight planted bugs in one simulation, each with its conf_bench (bench.sv): the
// correct DUTs run every case, each bug the case that must catch it. run.sh makes the bug variants (conf_BUG_*_dut: ../rtl with the define
// set and the module names prefixed), so that one Verilator build holds all eight.
`timescale 1ns / 1ps
`include "dut_bench.svh"

module tb (
    input  logic clk,
    output logic failed
);
    `CONF_TB_BODY(conf_dut, "good", "")
    `CONF_TB_BODY_AT(conf_G25_dut, "good-25g", "", "suite25")
    `CONF_TB_BODY(conf_BUG_GOOD_FLAG_dut, "BUG_GOOD_FLAG", "rx-terminate-lanes")
    `CONF_TB_BODY(conf_BUG_OS_MASK_dut, "BUG_OS_MASK", "rx-ordered-set-4b")
    `CONF_TB_BODY(conf_BUG_IFG8_DROP_dut, "BUG_IFG8_DROP", "rx-ifg")
    `CONF_TB_BODY(conf_BUG_BER_15_dut, "BUG_BER_15", "rx-hi-ber-15")
    `CONF_TB_BODY(conf_BUG_NO_DIC_dut, "BUG_NO_DIC", "tx-dic")
    `CONF_TB_BODY(conf_BUG_NO_RF_dut, "BUG_NO_RF", "tx-link-fault")
    `CONF_TB_BODY(conf_BUG_PRBS_HDR_dut, "BUG_PRBS_HDR", "rx-prbs31")
    `CONF_TB_BODY(conf_BUG_PRBS_TX_HDR_dut, "BUG_PRBS_TX_HDR", "tx-prbs31")
    wire all_done = conf_dut_done && conf_G25_dut_done && conf_BUG_GOOD_FLAG_dut_done && conf_BUG_OS_MASK_dut_done
                    && conf_BUG_IFG8_DROP_dut_done && conf_BUG_BER_15_dut_done
                    && conf_BUG_NO_DIC_dut_done && conf_BUG_NO_RF_dut_done
                    && conf_BUG_PRBS_HDR_dut_done && conf_BUG_PRBS_TX_HDR_dut_done;
    // failed: the correct DUT failed, or a bug was not caught
    always @(posedge clk) if (all_done) begin
        failed <= conf_dut_failed || conf_G25_dut_failed || !(conf_BUG_GOOD_FLAG_dut_failed && conf_BUG_OS_MASK_dut_failed
                  && conf_BUG_IFG8_DROP_dut_failed && conf_BUG_BER_15_dut_failed
                  && conf_BUG_NO_DIC_dut_failed && conf_BUG_NO_RF_dut_failed
                  && conf_BUG_PRBS_HDR_dut_failed && conf_BUG_PRBS_TX_HDR_dut_failed);
        $finish;
    end
endmodule

// tb.sv: the example DUT (../rtl/conf_dut.v) and conf_bench (bench.sv): every case
// of the suite given by +suite=DIR, judged by the model through the DPI-C package
// (docs/conformance.md, "SystemVerilog"). Build it with a BUG_* define to plant a bug.
`timescale 1ns / 1ps
`include "dut_bench.svh"

module tb (
    input  logic clk,
    output logic failed
);
    `CONF_TB_BODY(conf_dut, "dut", "")
    always @(posedge clk) if (conf_dut_done) begin
        failed <= conf_dut_failed;
        $finish;
    end
endmodule

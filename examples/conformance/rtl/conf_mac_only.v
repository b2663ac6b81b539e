// The example MAC of baser's conformance catalogue (docs/conformance.md): the MAC of conf_dut
// alone (conf_mac.v), AXI-stream on one side and a 64-bit XGMII on the other, with the port
// names of verilog-ethernet's eth_mac_10g plus the link fault outputs and frame counters. The
// catalogue's MAC-only adapter gives its XGMII input each case's line as the model's PCS
// receiver decodes it, and puts its XGMII output on a line with the model's PCS transmitter
// (examples/conformance/test_mac.py). conf_mac.v's planted bugs (BUG_GOOD_FLAG,
// BUG_IFG8_DROP, BUG_NO_DIC) apply.
`timescale 1ns / 1ps

module conf_mac_only #(
    parameter integer MAX_FRAME = 1518,
    parameter integer IFG = 12,
    parameter integer DIC = 1
) (
    input  wire        rx_clk,
    input  wire        rx_rst,
    input  wire        tx_clk,
    input  wire        tx_rst,

    input  wire [63:0] tx_axis_tdata,
    input  wire [7:0]  tx_axis_tkeep,
    input  wire        tx_axis_tvalid,
    output wire        tx_axis_tready,
    input  wire        tx_axis_tlast,
    input  wire        tx_axis_tuser,

    output wire [63:0] rx_axis_tdata,
    output wire [7:0]  rx_axis_tkeep,
    output wire        rx_axis_tvalid,
    output wire        rx_axis_tlast,
    output wire        rx_axis_tuser,

    input  wire [63:0] xgmii_rxd,
    input  wire [7:0]  xgmii_rxc,
    output wire [63:0] xgmii_txd,
    output wire [7:0]  xgmii_txc,

    output wire        rx_error_bad_frame,
    output wire        rx_error_bad_fcs,
    output wire        rx_local_fault,
    output wire        rx_remote_fault,
    output wire [31:0] rx_frames_good,
    output wire [31:0] rx_frames_bad,
    output wire [31:0] rx_fcs_errors,
    output wire [31:0] tx_frames
);
    conf_mac_rx #(.MAX_FRAME(MAX_FRAME)) mac_rx (
        .clk(rx_clk), .rst(rx_rst), .xgmii_rxd(xgmii_rxd), .xgmii_rxc(xgmii_rxc),
        .rx_axis_tdata(rx_axis_tdata), .rx_axis_tkeep(rx_axis_tkeep),
        .rx_axis_tvalid(rx_axis_tvalid), .rx_axis_tlast(rx_axis_tlast),
        .rx_axis_tuser(rx_axis_tuser),
        .rx_error_bad_frame(rx_error_bad_frame), .rx_error_bad_fcs(rx_error_bad_fcs),
        .rx_frames_good(rx_frames_good), .rx_frames_bad(rx_frames_bad),
        .rx_fcs_errors(rx_fcs_errors),
        .rx_local_fault(rx_local_fault), .rx_remote_fault(rx_remote_fault)
    );

    conf_mac_tx #(.IFG(IFG), .DIC(DIC)) mac_tx (
        .clk(tx_clk), .rst(tx_rst),
        .tx_axis_tdata(tx_axis_tdata), .tx_axis_tkeep(tx_axis_tkeep),
        .tx_axis_tvalid(tx_axis_tvalid), .tx_axis_tready(tx_axis_tready),
        .tx_axis_tlast(tx_axis_tlast), .tx_axis_tuser(tx_axis_tuser),
        .local_fault(rx_local_fault), .remote_fault(rx_remote_fault),
        .xgmii_txd(xgmii_txd), .xgmii_txc(xgmii_txc), .tx_frames(tx_frames)
    );
endmodule

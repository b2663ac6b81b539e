// The example DUT of baser's conformance catalogue (docs/conformance.md): a 10GBASE-R MAC +
// PCS with the port names of verilog-ethernet's eth_mac_phy_10g (so the catalogue's
// `verilog_ethernet` adapter drives it as it is), plus the link fault outputs and counters
// that verilog-ethernet's core does not have. Both clocks may be the same clock (the
// transmitter reads the receiver's link fault without synchronising).
//
// Build with one of BUG_GOOD_FLAG, BUG_OS_MASK, BUG_IFG8_DROP, BUG_NO_DIC, BUG_BER_15,
// BUG_PRBS_HDR, BUG_PRBS_TX_HDR defined to plant that bug (conf_pcs.v, conf_mac.v,
// conf_prbs31.v say what each does). The PRBS31 test pattern (cfg_*_prbs31_enable,
// rx_error_count) has verilog-ethernet's names. BER_THRESHOLD 97 and a BER_WINDOW make it
// a 25GBASE-R MAC + PCS (the same PCS, Clause 107, and the 25G monitor);
// a 25G build that kept BER_THRESHOLD 16 is the planted bug of examples/conformance/runner.py.
`timescale 1ns / 1ps

module conf_dut #(
    parameter integer BER_WINDOW = 19531,    // the BER timer in blocks (2 ms at 25G: 781250)
    parameter integer BER_THRESHOLD = 16,    // invalid headers that raise hi_ber (25G: 97)
    parameter integer MAX_FRAME = 1518,
    parameter integer IFG = 12,
    parameter integer DIC = 1,
    parameter integer PRBS31_INVERT = 0      // 1: the PRBS31's complement (conf_prbs31.v)
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

    output wire [63:0] serdes_tx_data,
    output wire [1:0]  serdes_tx_hdr,
    input  wire [63:0] serdes_rx_data,
    input  wire [1:0]  serdes_rx_hdr,
    output wire        serdes_rx_bitslip,

    input  wire        cfg_tx_prbs31_enable,  // the PRBS31 test pattern (conf_prbs31.v)
    input  wire        cfg_rx_prbs31_enable,
    output wire [6:0]  rx_error_count,         // the checker's errors of this clock

    output wire        rx_error_bad_frame,
    output wire        rx_error_bad_fcs,
    output wire        rx_bad_block,
    output wire        rx_block_lock,
    output wire        rx_high_ber,
    output wire        rx_status,
    output wire        rx_local_fault,
    output wire        rx_remote_fault,
    output wire [31:0] rx_errored_blocks,
    output wire [31:0] rx_ber_count,
    output wire [31:0] rx_frames_good,
    output wire [31:0] rx_frames_bad,
    output wire [31:0] rx_fcs_errors,
    output wire [31:0] tx_frames
);
    wire [63:0] rxd, txd;
    wire [7:0] rxc, txc;
    wire pcs_bitslip;
    wire [63:0] pcs_tx_data;
    wire [1:0] pcs_tx_hdr;

    conf_pcs_rx #(.BER_WINDOW(BER_WINDOW), .BER_THRESHOLD(BER_THRESHOLD)) pcs_rx (
        .clk(rx_clk), .rst(rx_rst),
        .serdes_rx_data(serdes_rx_data), .serdes_rx_hdr(serdes_rx_hdr),
        .serdes_rx_bitslip(pcs_bitslip),
        .xgmii_rxd(rxd), .xgmii_rxc(rxc),
        .block_lock(rx_block_lock), .hi_ber(rx_high_ber), .bad_block(rx_bad_block),
        .errored_blocks(rx_errored_blocks), .ber_count(rx_ber_count)
    );
    assign rx_status = rx_block_lock && !rx_high_ber;  // PCS_status (49.2.14.1)

    conf_mac_rx #(.MAX_FRAME(MAX_FRAME)) mac_rx (
        .clk(rx_clk), .rst(rx_rst), .xgmii_rxd(rxd), .xgmii_rxc(rxc),
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
        .xgmii_txd(txd), .xgmii_txc(txc), .tx_frames(tx_frames)
    );

    conf_pcs_tx pcs_tx (
        .clk(tx_clk), .rst(tx_rst), .xgmii_txd(txd), .xgmii_txc(txc),
        .serdes_tx_data(pcs_tx_data), .serdes_tx_hdr(pcs_tx_hdr)
    );

    // ---- the PRBS31 test pattern between the PCS and the serdes (conf_prbs31.v)
    conf_prbs31_serdes #(.INVERT(PRBS31_INVERT)) prbs31 (
        .rx_clk(rx_clk), .rx_rst(rx_rst), .tx_clk(tx_clk), .tx_rst(tx_rst),
        .cfg_tx_prbs31_enable(cfg_tx_prbs31_enable), .cfg_rx_prbs31_enable(cfg_rx_prbs31_enable),
        .serdes_rx_data(serdes_rx_data), .serdes_rx_hdr(serdes_rx_hdr),
        .pcs_bitslip(pcs_bitslip), .serdes_rx_bitslip(serdes_rx_bitslip),
        .pcs_tx_data(pcs_tx_data), .pcs_tx_hdr(pcs_tx_hdr),
        .serdes_tx_data(serdes_tx_data), .serdes_tx_hdr(serdes_tx_hdr),
        .rx_error_count(rx_error_count)
    );
endmodule

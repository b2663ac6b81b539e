// The example PHY of baser's conformance catalogue (docs/conformance.md): the PCS of conf_dut
// alone (conf_pcs.v), serdes on one side and a 64-bit XGMII on the other, with the port names
// of verilog-ethernet's eth_phy_10g. The catalogue's PHY-only adapter reads its XGMII output
// through the model's MAC and drives its XGMII input from the model's MAC
// (examples/conformance/test_phy.py).
//
// Build with BUG_66_RXC (conf_pcs.v: the /S/ of a 0x66 block marked data on the XGMII) or
// BUG_T7_TYPE (conf_pcs.v: a /T/ in lane 7 sent as block type 0xe1, lane 6's) defined to
// plant that bug.
`timescale 1ns / 1ps

module conf_phy #(
    parameter integer BER_WINDOW = 19531,
    parameter integer BER_THRESHOLD = 16,
    parameter integer PRBS31_INVERT = 0
) (
    input  wire        rx_clk,
    input  wire        rx_rst,
    input  wire        tx_clk,
    input  wire        tx_rst,

    input  wire [63:0] xgmii_txd,
    input  wire [7:0]  xgmii_txc,
    output wire [63:0] xgmii_rxd,
    output wire [7:0]  xgmii_rxc,

    output wire [63:0] serdes_tx_data,
    output wire [1:0]  serdes_tx_hdr,
    input  wire [63:0] serdes_rx_data,
    input  wire [1:0]  serdes_rx_hdr,
    output wire        serdes_rx_bitslip,

    input  wire        cfg_tx_prbs31_enable,  // the PRBS31 test pattern (conf_prbs31.v)
    input  wire        cfg_rx_prbs31_enable,
    output wire [6:0]  rx_error_count,         // the checker's errors of this clock

    output wire        rx_block_lock,
    output wire        rx_high_ber,
    output wire [31:0] rx_errored_blocks
);
    wire rx_bad_block;
    wire [31:0] rx_ber_count;
    wire pcs_bitslip;
    wire [63:0] pcs_tx_data;
    wire [1:0] pcs_tx_hdr;

    conf_pcs_rx #(.BER_WINDOW(BER_WINDOW), .BER_THRESHOLD(BER_THRESHOLD)) pcs_rx (
        .clk(rx_clk), .rst(rx_rst),
        .serdes_rx_data(serdes_rx_data), .serdes_rx_hdr(serdes_rx_hdr),
        .serdes_rx_bitslip(pcs_bitslip),
        .xgmii_rxd(xgmii_rxd), .xgmii_rxc(xgmii_rxc),
        .block_lock(rx_block_lock), .hi_ber(rx_high_ber), .bad_block(rx_bad_block),
        .errored_blocks(rx_errored_blocks), .ber_count(rx_ber_count)
    );

    conf_pcs_tx pcs_tx (
        .clk(tx_clk), .rst(tx_rst), .xgmii_txd(xgmii_txd), .xgmii_txc(xgmii_txc),
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

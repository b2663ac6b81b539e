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
    parameter integer BER_THRESHOLD = 16
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

    output wire        rx_block_lock,
    output wire        rx_high_ber,
    output wire [31:0] rx_errored_blocks
);
    wire rx_bad_block;
    wire [31:0] rx_ber_count;

    conf_pcs_rx #(.BER_WINDOW(BER_WINDOW), .BER_THRESHOLD(BER_THRESHOLD)) pcs_rx (
        .clk(rx_clk), .rst(rx_rst),
        .serdes_rx_data(serdes_rx_data), .serdes_rx_hdr(serdes_rx_hdr),
        .serdes_rx_bitslip(serdes_rx_bitslip),
        .xgmii_rxd(xgmii_rxd), .xgmii_rxc(xgmii_rxc),
        .block_lock(rx_block_lock), .hi_ber(rx_high_ber), .bad_block(rx_bad_block),
        .errored_blocks(rx_errored_blocks), .ber_count(rx_ber_count)
    );

    conf_pcs_tx pcs_tx (
        .clk(tx_clk), .rst(tx_rst), .xgmii_txd(xgmii_txd), .xgmii_txc(xgmii_txc),
        .serdes_tx_data(serdes_tx_data), .serdes_tx_hdr(serdes_tx_hdr)
    );
endmodule

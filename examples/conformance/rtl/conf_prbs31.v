// The example DUT's PRBS31 test pattern (IEEE 802.3 49.2.8 generator, 49.2.12 checker):
// 1 + x^28 + x^31 over the whole 66-bit stream, sync header included, bit 0 of the header
// first on the wire; one block per clock. INVERT 0 sends the LFSR's output as it is (the
// reading baser defaults to: whether Figure 49-9 inverts it is unverified); verilog-ethernet
// and taxi send its complement (INVERT 1).
//
// Planted bugs (each off unless its `define is given):
//   BUG_PRBS_HDR     the checker skips the two sync header bits: an error there is not counted.
//   BUG_PRBS_TX_HDR  the generator runs over the 64 payload bits only and sends a data header.
`timescale 1ns / 1ps

// The generator: {data, hdr} while enable is high (the state runs on from where it stopped).
module conf_prbs31_gen #(
    parameter integer INVERT = 0
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        enable,
    output reg  [63:0] data = 64'd0,
    output reg  [1:0]  hdr = 2'd0
);
    reg [30:0] s = 31'h7fffffff;  // s[k] = b(n-31+k): bit 30 the newest LFSR bit
    reg [30:0] t;
    reg [65:0] w;
    reg nb;
    integer i;
    // the next 66 bits, computed in the clocked block (an always @* on s alone would not
    // run before s first changes)
    always @(posedge clk) begin
        t = s;
        w = 66'd0;
`ifdef BUG_PRBS_TX_HDR
        w[1:0] = 2'b10;
        for (i = 2; i < 66; i = i + 1) begin
`else
        for (i = 0; i < 66; i = i + 1) begin
`endif
            nb = t[3] ^ t[0];  // b(n) = b(n-28) ^ b(n-31)
            w[i] = nb ^ (INVERT != 0);
            t = {nb, t[30:1]};
        end
        if (rst) s <= 31'h7fffffff;
        else if (enable) begin
            s <= t;
            {data, hdr} <= w;
        end
    end
endmodule

// The checker: each received bit predicted from the 31 before it (self-synchronizing, so a
// flipped bit counts 3 times: itself and the two predictions it feeds); errors is that
// clock's count (as verilog-ethernet's rx_error_count), 0 while enable is low.
module conf_prbs31_check #(
    parameter integer INVERT = 0
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        enable,
    input  wire [63:0] data,
    input  wire [1:0]  hdr,
    output reg  [6:0]  errors = 7'd0
);
    reg [30:0] h = 31'd0;  // the last 31 received bits, uninverted, bit 30 the newest
    reg [30:0] t;
    reg [65:0] r;
    reg [6:0] n;
    reg b;
    integer i;
    always @(posedge clk) begin
        r = {data, hdr};
        t = h;
        n = 7'd0;
        for (i = 0; i < 66; i = i + 1) begin
            b = r[i] ^ (INVERT != 0);
`ifdef BUG_PRBS_HDR
            if (i >= 2)
`endif
            n = n + {6'd0, b ^ t[3] ^ t[0]};
            t = {b, t[30:1]};
        end
        h <= t;
        errors <= (rst || !enable) ? 7'd0 : n;
    end
endmodule

// The test pattern between a PCS and its serdes: the generator's block replaces the PCS's on
// the line while cfg_tx_prbs31_enable is high (from the clock after it rises, with the
// generator's output register), the checker counts the received bits while
// cfg_rx_prbs31_enable is high, and block lock's slips are held off meanwhile (49.2.12).
module conf_prbs31_serdes #(
    parameter integer INVERT = 0
) (
    input  wire        rx_clk,
    input  wire        rx_rst,
    input  wire        tx_clk,
    input  wire        tx_rst,
    input  wire        cfg_tx_prbs31_enable,
    input  wire        cfg_rx_prbs31_enable,
    input  wire [63:0] serdes_rx_data,
    input  wire [1:0]  serdes_rx_hdr,
    input  wire        pcs_bitslip,
    output wire        serdes_rx_bitslip,
    input  wire [63:0] pcs_tx_data,
    input  wire [1:0]  pcs_tx_hdr,
    output wire [63:0] serdes_tx_data,
    output wire [1:0]  serdes_tx_hdr,
    output wire [6:0]  rx_error_count
);
    wire [63:0] prbs_tx_data;
    wire [1:0] prbs_tx_hdr;
    reg tx_prbs = 1'b0;
    always @(posedge tx_clk) tx_prbs <= cfg_tx_prbs31_enable;
    assign serdes_rx_bitslip = pcs_bitslip && !cfg_rx_prbs31_enable;
    assign serdes_tx_data = tx_prbs ? prbs_tx_data : pcs_tx_data;
    assign serdes_tx_hdr = tx_prbs ? prbs_tx_hdr : pcs_tx_hdr;
    conf_prbs31_gen #(.INVERT(INVERT)) prbs_gen (
        .clk(tx_clk), .rst(tx_rst), .enable(cfg_tx_prbs31_enable),
        .data(prbs_tx_data), .hdr(prbs_tx_hdr)
    );
    conf_prbs31_check #(.INVERT(INVERT)) prbs_check (
        .clk(rx_clk), .rst(rx_rst), .enable(cfg_rx_prbs31_enable),
        .data(serdes_rx_data), .hdr(serdes_rx_hdr), .errors(rx_error_count)
    );
endmodule

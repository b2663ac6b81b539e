// pcs_tx.v: a small 10GBASE-R transmit PCS (IEEE 802.3 Clause 49), 64-bit XGMII in,
// scrambled 66-bit blocks out. The example DUT of examples/cocotb-dump: small, but built
// the way common FPGA RTL is, so that its dumps look like theirs:
//
//   - two register stages from XGMII to the block outputs (pipeline latency 2 blocks):
//     stage 1 classifies and encodes the transfer (TX state machine, Figure 49-7 formats),
//     stage 2 scrambles the payload;
//   - synchronous, active-high reset of the output registers: while rst is high (and the
//     first cycle after) the outputs hold hdr 0 / data 0, the "reset fill" of a dump;
//   - the scrambler state register is NOT reset (49.2.6 defines no initial value). It is
//     given an arbitrary value in an initial block so that the simulator starts from a
//     defined one; the test bench does not know it.
//
// Encodes what an Ethernet MAC sends: idle (block type 0x1E), start in lane 0 (0x78) or
// lane 4 after four idles (0x33), data, terminate in lane 0..7 followed by idles
// (0x87 0x99 0xAA 0xB4 0xCC 0xD2 0xE1 0xFF). Any other transfer (ordered sets, /E/, LPI,
// reserved characters) is classified E and sent as EBLOCK_T, as is any sequence the
// transmit state machine of 49.2.13.2.3 rejects.
//
// Bit order: xgmii lane i = xgmii_txd[8i+7:8i], xgmii_txc[i]. encoded_tx_hdr is the sync
// header as an integer whose bit 0 is first on the wire (2'd2 = data, IEEE "01";
// 2'd1 = control, IEEE "10"); encoded_tx_data bit 0 is first on the wire.
//
// FAULT_BLOCK >= 0 plants a fault for the negative test: bit FAULT_BIT of the payload of
// the FAULT_BLOCK-th data block after reset (counting from 0) is flipped before scrambling.
`timescale 1ns / 1ps

module pcs_tx #(
    parameter integer FAULT_BLOCK = -1,
    parameter integer FAULT_BIT = 21
) (
    input  wire        clk,
    input  wire        rst,
    input  wire [63:0] xgmii_txd,
    input  wire [7:0]  xgmii_txc,
    output reg  [1:0]  encoded_tx_hdr,
    output reg  [63:0] encoded_tx_data,
    output reg         tx_valid
);

localparam [1:0] SYNC_DATA = 2'd2;
localparam [1:0] SYNC_CTRL = 2'd1;

localparam [7:0] XGMII_IDLE  = 8'h07;
localparam [7:0] XGMII_START = 8'hfb;
localparam [7:0] XGMII_TERM  = 8'hfd;
localparam [63:0] XGMII_IDLE_WORD = {8{XGMII_IDLE}};

// /E/ is 7-bit code 0x1E; EBLOCK_T is a 0x1E block of eight /E/
localparam [63:0] EBLOCK_T = {{8{7'h1e}}, 8'h1e};

// T_TYPE of a transfer (49.2.13.2.3)
localparam [2:0] T_C = 3'd0, T_S = 3'd1, T_T = 3'd2, T_D = 3'd3, T_E = 3'd4;

// TX states: TX_INIT, TX_C and TX_T leave on the same arrows, so one state stands for them
localparam [1:0] ST_C = 2'd0, ST_D = 2'd1, ST_E = 2'd2;

function [7:0] term_type;
    input integer lane;
    begin
        case (lane)
            0: term_type = 8'h87;
            1: term_type = 8'h99;
            2: term_type = 8'haa;
            3: term_type = 8'hb4;
            4: term_type = 8'hcc;
            5: term_type = 8'hd2;
            6: term_type = 8'he1;
            default: term_type = 8'hff;
        endcase
    end
endfunction

// ---------------------------------------------------------------- stage 1: encode
// encode(txc, txd) = {t_type, sync header, payload} of one transfer. Functions and continuous
// assignments (not always @*), so that a constant input is evaluated at time 0 too.
function [68:0] encode;
    input [7:0]  txc;
    input [63:0] txd;
    integer k;
    begin
        encode = {T_E, SYNC_CTRL, EBLOCK_T};
        if (txc == 8'h00) begin
            encode = {T_D, SYNC_DATA, txd};
        end else if (txc == 8'hff && txd == XGMII_IDLE_WORD) begin
            encode = {T_C, SYNC_CTRL, 64'h1e};                 // eight /I/, 7-bit code 0x00
        end else if (txc == 8'h01 && txd[7:0] == XGMII_START) begin
            encode = {T_S, SYNC_CTRL, txd[63:8], 8'h78};      // S0 D1..D7
        end else if (txc == 8'h1f && txd[39:0] == {XGMII_START, {4{XGMII_IDLE}}}) begin
            encode = {T_S, SYNC_CTRL, txd[63:40], 32'h0, 8'h33};  // I0..I3 (code 0), S4 D5..D7
        end else begin
            // /T/ in lane k: data below it, idles above it
            for (k = 0; k < 8; k = k + 1)
                if (txc == (8'hff << k) && txd[8*k +: 8] == XGMII_TERM
                        && (txd >> (8*k + 8)) == (XGMII_IDLE_WORD >> (8*k + 8)))
                    encode = {T_T, SYNC_CTRL,
                              ((txd & ((64'd1 << (8*k)) - 64'd1)) << 8) | term_type(k)};
        end
    end
endfunction

wire [2:0]  t_type;
wire [1:0]  blk_hdr;
wire [63:0] blk_data;
assign {t_type, blk_hdr, blk_data} = encode(xgmii_txc, xgmii_txd);

reg [1:0]  tx_state;
wire [1:0] tx_state_next =
    tx_state == ST_C ? (t_type == T_C ? ST_C : t_type == T_S ? ST_D : ST_E) :
    tx_state == ST_D ? (t_type == T_D ? ST_D : t_type == T_T ? ST_C : ST_E) :
                       (t_type == T_D ? ST_D : (t_type == T_C || t_type == T_T) ? ST_C : ST_E);

reg        s1_valid;
reg [1:0]  s1_hdr;
reg [63:0] s1_data;
reg [31:0] data_blocks;    // data blocks since reset, for the planted fault

always @(posedge clk) begin
    if (rst) begin
        tx_state <= ST_C;      // TX_INIT
        s1_valid <= 1'b0;
        s1_hdr <= 2'd0;
        s1_data <= 64'd0;
        data_blocks <= 32'd0;
    end else begin
        tx_state <= tx_state_next;
        s1_valid <= 1'b1;
        if (tx_state_next == ST_E) begin
            s1_hdr <= SYNC_CTRL;
            s1_data <= EBLOCK_T;
        end else begin
            s1_hdr <= blk_hdr;
            s1_data <= blk_data;
            if (blk_hdr == SYNC_DATA) begin
                data_blocks <= data_blocks + 32'd1;
                if (FAULT_BLOCK >= 0 && data_blocks == FAULT_BLOCK)
                    s1_data <= blk_data ^ (64'd1 << FAULT_BIT);
            end
        end
    end
end

// ---------------------------------------------------------------- stage 2: scramble
// 1 + x^39 + x^58, bit 0 first. scrambler_state holds the last 58 scrambled bits, bit 57
// the newest: out[i] = in[i] ^ s[i+19] ^ s[i] over the sequence {out, state}.
reg [57:0]  scrambler_state;

function [63:0] scramble;
    input [63:0] data;
    input [57:0] state;
    reg [121:0] s;
    integer i;
    begin
        s = {64'd0, state};
        for (i = 0; i < 64; i = i + 1)
            s[58 + i] = data[i] ^ s[i + 19] ^ s[i];
        scramble = s[121:58];
    end
endfunction

wire [63:0] scrambled = scramble(s1_data, scrambler_state);

initial scrambler_state = 58'h1234_5678_9abc_de5;

always @(posedge clk) begin
    if (rst) begin
        encoded_tx_hdr <= 2'd0;
        encoded_tx_data <= 64'd0;
        tx_valid <= 1'b0;
    end else if (s1_valid) begin
        encoded_tx_hdr <= s1_hdr;
        encoded_tx_data <= scrambled;
        tx_valid <= 1'b1;
        scrambler_state <= scrambled[63:6];     // the last 58 scrambled bits
    end
end

endmodule

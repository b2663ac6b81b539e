// The example DUT's 10GBASE-R PCS (IEEE 802.3 Clause 49), written for the conformance
// catalogue of baser (docs/conformance.md): small, readable, Icarus-compatible Verilog-2005,
// one 66-bit block per clock on a 64-bit serdes interface with a separate 2-bit header.
// Header as an integer, bit 0 first on the wire: 2'b10 data, 2'b01 control (DESIGN.md).
//
// conf_pcs_rx: block lock (49.2.9, Fig. 49-14) with bit slip, descrambler (49.2.10), BER
//   monitor (Fig. 49-15), receive state diagram (Fig. 49-17) -> 64-bit XGMII.
// conf_pcs_tx: transmit state diagram (Fig. 49-16) and scrambler (49.2.6).
//
// Planted bugs (each off unless its `define is given):
//   BUG_OS_MASK  the 0x4b block (O0 D1 D2 D3 C4..C7) decoded with control mask 0xff: the
//                ordered set's data lanes 1..3 are marked control.
//   BUG_BER_15   the BER monitor raises hi_ber on the 15th invalid header of a window
//                (one short of BER_THRESHOLD).
//   BUG_66_RXC   a 0x66 block (ordered set, then /S/ in lane 4) decoded with rxc 0x01: the
//                /S/ goes out as data on the XGMII (found by the PHY-only run, conf_phy.v).
//   BUG_T7_TYPE  a /T/ in lane 7 sent as block type 0xe1 (lane 6's): the frame's last octet
//                is lost on the line.
//
// The BER monitor's parameters make it a 10GBASE-R (the defaults: 16 invalid headers in
// 125 us) or a 25GBASE-R PCS (Clause 107: BER_THRESHOLD 97, BER_WINDOW 781250 blocks = 2 ms
// of 2.56 ns blocks); a bench shortens BER_WINDOW. The window starts with block lock, as in
// Fig. 49-15.
`timescale 1ns / 1ps

module conf_pcs_rx #(
    parameter integer BER_WINDOW = 19531,  // 125 us of 6.4 ns blocks (49.2.14.1)
    parameter integer BER_THRESHOLD = 16   // invalid headers in a window that raise hi_ber
) (
    input  wire        clk,
    input  wire        rst,
    input  wire [63:0] serdes_rx_data,
    input  wire [1:0]  serdes_rx_hdr,
    output reg         serdes_rx_bitslip = 1'b0,
    output reg  [63:0] xgmii_rxd = 64'h0707070707070707,
    output reg  [7:0]  xgmii_rxc = 8'hff,
    output reg         block_lock = 1'b0,
    output reg         hi_ber = 1'b0,
    output reg         bad_block = 1'b0,        // a block decoded into RX_E, one clock
    output reg  [31:0] errored_blocks = 32'd0,  // entries to RX_E (3.33 bits 7:0, wider)
    output reg  [31:0] ber_count = 32'd0        // entries to BER_BAD_SH (3.33 bits 13:8, wider)
);
    localparam [1:0] H_DATA = 2'b10, H_CTRL = 2'b01;
    localparam [2:0] T_C = 3'd0, T_S = 3'd1, T_T = 3'd2, T_D = 3'd3, T_E = 3'd4;
    localparam [2:0] RX_INIT = 3'd0, RX_C = 3'd1, RX_D = 3'd2, RX_T = 3'd3, RX_E = 3'd4;
    localparam [63:0] LBLOCK_D = 64'h0100009c0100009c, EBLOCK_D = 64'hfefefefefefefefe;

    // ---- block lock (Fig. 49-14), one header per clock
    reg [6:0] sh_cnt = 0;
    reg [4:0] sh_invld_cnt = 0;
    reg [2:0] slip_wait = 0;
    wire sh_valid = serdes_rx_hdr == H_DATA || serdes_rx_hdr == H_CTRL;
    always @(posedge clk) begin
        serdes_rx_bitslip <= 1'b0;
        if (rst) begin
            block_lock <= 1'b0; sh_cnt <= 0; sh_invld_cnt <= 0; slip_wait <= 0;
        end else if (slip_wait != 0) begin
            slip_wait <= slip_wait - 1;  // SLIP: wait for slip_done
        end else if (sh_valid) begin  // VALID_SH
            if (sh_cnt == 63) begin
                if (sh_invld_cnt == 0) block_lock <= 1'b1;  // 64_GOOD
                sh_cnt <= 0; sh_invld_cnt <= 0;
            end else sh_cnt <= sh_cnt + 1;
        end else begin  // INVALID_SH
            if (sh_invld_cnt == 15 || !block_lock) begin  // SLIP
                block_lock <= 1'b0; serdes_rx_bitslip <= 1'b1; slip_wait <= 4;
                sh_cnt <= 0; sh_invld_cnt <= 0;
            end else if (sh_cnt == 63) begin
                sh_cnt <= 0; sh_invld_cnt <= 0;
            end else begin
                sh_cnt <= sh_cnt + 1; sh_invld_cnt <= sh_invld_cnt + 1;
            end
        end
    end

    // ---- BER monitor (Fig. 49-15): forced to BER_MT_INIT while block lock is false
    reg [31:0] ber_timer = 0;
    reg [7:0] ber_cnt = 0;
    reg ber_hi_state = 1'b0;
`ifdef BUG_BER_15
    localparam [7:0] BER_LIMIT = BER_THRESHOLD - 1;
`else
    localparam [7:0] BER_LIMIT = BER_THRESHOLD;
`endif
    wire timer_done = ber_timer == BER_WINDOW - 1;
    // the header that loses block lock: the monitor is forced to BER_MT_INIT with it
    wire losing_lock = slip_wait == 0 && !sh_valid && sh_invld_cnt == 15;
    always @(posedge clk) begin
        if (rst || !block_lock) begin
            ber_timer <= 0; ber_cnt <= 0; hi_ber <= 1'b0; ber_hi_state <= 1'b0;
        end else begin
            ber_timer <= timer_done ? 0 : ber_timer + 1;
            if (ber_hi_state) begin  // HI_BER: wait for the window's end
                if (timer_done) begin ber_hi_state <= 1'b0; ber_cnt <= 0; end
            end else if (!sh_valid) begin  // BER_BAD_SH
                ber_count <= ber_count + 1;
                if (ber_cnt + 1 == BER_LIMIT && !losing_lock) begin
                    hi_ber <= 1'b1; ber_hi_state <= 1'b1;
                end else if (timer_done) begin
                    hi_ber <= 1'b0; ber_cnt <= 0;  // GOOD_BER
                end else ber_cnt <= ber_cnt + 1;
            end else if (timer_done) begin
                hi_ber <= 1'b0; ber_cnt <= 0;  // GOOD_BER
            end
        end
    end

    // ---- descrambler (49.2.10): state bit 57 the latest line bit
    reg [57:0] dscr = {58{1'b1}};
    reg [63:0] plain;
    reg [57:0] st;
    integer i;
    always @* begin
        st = dscr;
        for (i = 0; i < 64; i = i + 1) begin
            plain[i] = serdes_rx_data[i] ^ st[19] ^ st[0];
            st = {serdes_rx_data[i], st[57:1]};
        end
    end

    // ---- block classification (R_TYPE) and decoding to XGMII (Table 49-1, Fig. 49-7)
    function [7:0] xchar;  // 7-bit control code -> XGMII control character
        input [6:0] c;
        case (c)
            7'h00: xchar = 8'h07; 7'h06: xchar = 8'h06; 7'h1e: xchar = 8'hfe;
            7'h2d: xchar = 8'h1c; 7'h33: xchar = 8'h3c; 7'h4b: xchar = 8'h7c;
            7'h55: xchar = 8'hbc; 7'h66: xchar = 8'hdc; 7'h78: xchar = 8'hf7;
            default: xchar = 8'h00;  // invalid
        endcase
    endfunction
    function cvalid;  // a valid control code that is not /E/ (an R_TYPE C lane)
        input [6:0] c;
        cvalid = xchar(c) != 8'h00 && c != 7'h1e && c != 7'h06;  // /LI/ without EEE: E (49.2.13.2.3)
    endfunction
    function cvalid_e;  // valid, /E/ allowed (lanes after a /T/)
        input [6:0] c;
        cvalid_e = xchar(c) != 8'h00;
    endfunction
    function ovalid;  // O code: 0 sequence, f signal
        input [3:0] o;
        ovalid = o == 4'h0 || o == 4'hf;
    endfunction
    function [7:0] ochar;
        input [3:0] o;
        ochar = o == 4'hf ? 8'h5c : 8'h9c;
    endfunction

    reg [2:0] rtype;
    reg [63:0] d;
    reg [7:0] c;
    integer k, tl, ok;
    always @* begin
        rtype = T_E; d = EBLOCK_D; c = 8'hff; ok = 1; tl = -1;
        if (serdes_rx_hdr == H_DATA) begin
            rtype = T_D; d = plain; c = 8'h00;
        end else if (serdes_rx_hdr == H_CTRL) begin
            case (plain[7:0])
                8'h1e: begin
                    for (k = 0; k < 8; k = k + 1) begin
                        d[8*k +: 8] = xchar(plain[8+7*k +: 7]);
                        ok = ok & cvalid(plain[8+7*k +: 7]);
                    end
                    c = 8'hff; rtype = ok ? T_C : T_E;
                end
                8'h2d, 8'h33: begin
                    for (k = 0; k < 4; k = k + 1) begin
                        d[8*k +: 8] = xchar(plain[8+7*k +: 7]);
                        ok = ok & cvalid(plain[8+7*k +: 7]);
                    end
                    d[63:40] = plain[63:40];
                    if (plain[7:0] == 8'h2d) begin
                        d[39:32] = ochar(plain[39:36]); ok = ok & ovalid(plain[39:36]);
                        rtype = ok ? T_C : T_E;
                    end else begin
                        d[39:32] = 8'hfb; rtype = ok ? T_S : T_E;
                    end
                    c = 8'h1f;
                end
                8'h66, 8'h55, 8'h4b: begin
                    d[7:0] = ochar(plain[35:32]); d[31:8] = plain[31:8];
                    ok = ovalid(plain[35:32]);
                    if (plain[7:0] == 8'h66) begin
`ifdef BUG_66_RXC
                        d[39:32] = 8'hfb; d[63:40] = plain[63:40]; c = 8'h01;
`else
                        d[39:32] = 8'hfb; d[63:40] = plain[63:40]; c = 8'h11;
`endif
                        rtype = ok ? T_S : T_E;
                    end else if (plain[7:0] == 8'h55) begin
                        d[39:32] = ochar(plain[39:36]); d[63:40] = plain[63:40]; c = 8'h11;
                        ok = ok & ovalid(plain[39:36]);
                        rtype = ok ? T_C : T_E;
                    end else begin
                        for (k = 4; k < 8; k = k + 1) begin
                            d[8*k +: 8] = xchar(plain[36+7*(k-4) +: 7]);
                            ok = ok & cvalid(plain[36+7*(k-4) +: 7]);
                        end
`ifdef BUG_OS_MASK
                        c = 8'hff;
`else
                        c = 8'hf1;
`endif
                        rtype = ok ? T_C : T_E;
                    end
                end
                8'h78: begin
                    d = {plain[63:8], 8'hfb}; c = 8'h01; rtype = T_S;
                end
                8'h87: tl = 0; 8'h99: tl = 1; 8'haa: tl = 2; 8'hb4: tl = 3;
                8'hcc: tl = 4; 8'hd2: tl = 5; 8'he1: tl = 6; 8'hff: tl = 7;
                default: rtype = T_E;
            endcase
            if (tl >= 0) begin  // T block: data before the /T/, controls after it
                d = plain >> 8; c = 8'h00;
                d[8*tl +: 8] = 8'hfd; c[tl] = 1'b1;
                for (k = tl + 1; k < 8; k = k + 1) begin
                    d[8*k +: 8] = xchar(plain[8+7*k +: 7]);
                    ok = ok & cvalid_e(plain[8+7*k +: 7]);
                    c[k] = 1'b1;
                end
                rtype = ok ? T_T : T_E;
            end
        end
        if (rtype == T_E) begin d = EBLOCK_D; c = 8'hff; end
    end

    // ---- receive state diagram (Fig. 49-17): a T block is decided by the block after it
    reg [2:0] state = RX_INIT;
    reg [2:0] p_type = T_C;
    reg [63:0] p_d = 64'h0707070707070707;
    reg [7:0] p_c = 8'hff;
    reg p_valid = 1'b0;
    reg [2:0] next;
    always @* begin
        case (state)
            RX_INIT, RX_C, RX_T:
                next = p_type == T_C ? RX_C : p_type == T_S ? RX_D : RX_E;
            RX_D:
                next = p_type == T_D ? RX_D :
                       (p_type == T_T && (rtype == T_S || rtype == T_C)) ? RX_T : RX_E;
            default:  // RX_E
                next = p_type == T_C ? RX_C : p_type == T_D ? RX_D :
                       (p_type == T_T && (rtype == T_S || rtype == T_C)) ? RX_T : RX_E;
        endcase
        if (state == RX_INIT && p_type == T_T) next = RX_E;
    end
    always @(posedge clk) begin
        bad_block <= 1'b0;
        if (rst || !block_lock || hi_ber || slip_wait != 0) begin
            state <= RX_INIT; p_valid <= 1'b0;
            xgmii_rxd <= LBLOCK_D; xgmii_rxc <= 8'h11;
        end else begin
            p_type <= rtype; p_d <= d; p_c <= c; p_valid <= 1'b1;
            if (!p_valid) begin
                xgmii_rxd <= LBLOCK_D; xgmii_rxc <= 8'h11;
            end else begin
                state <= next;
                if (next == RX_E) begin
                    xgmii_rxd <= EBLOCK_D; xgmii_rxc <= 8'hff;
                    bad_block <= 1'b1; errored_blocks <= errored_blocks + 1;
                end else begin
                    xgmii_rxd <= p_d; xgmii_rxc <= p_c;
                end
            end
        end
        if (rst) begin errored_blocks <= 0; ber_count <= 0; end
        if (slip_wait == 0) dscr <= st;  // self-synchronising: always the last 58 line bits
        else dscr <= st;
    end
endmodule

module conf_pcs_tx (
    input  wire        clk,
    input  wire        rst,
    input  wire [63:0] xgmii_txd,
    input  wire [7:0]  xgmii_txc,
    output reg  [63:0] serdes_tx_data = 64'd0,
    output reg  [1:0]  serdes_tx_hdr = 2'b01
);
    localparam [2:0] T_C = 3'd0, T_S = 3'd1, T_T = 3'd2, T_D = 3'd3, T_E = 3'd4;
    localparam [2:0] TX_INIT = 3'd0, TX_C = 3'd1, TX_D = 3'd2, TX_T = 3'd3, TX_E = 3'd4;
    localparam [63:0] LBLOCK_T = 64'h0100000001000055, EBLOCK_T = 64'h3c78f1e3c78f1e1e;

    function [6:0] ccode;  // XGMII control character -> 7-bit code; 7'h7f: none
        input [7:0] x;
        case (x)
            8'h07: ccode = 7'h00; 8'h06: ccode = 7'h06; 8'hfe: ccode = 7'h1e;
            8'h1c: ccode = 7'h2d; 8'h3c: ccode = 7'h33; 8'h7c: ccode = 7'h4b;
            8'hbc: ccode = 7'h55; 8'hdc: ccode = 7'h66; 8'hf7: ccode = 7'h78;
            default: ccode = 7'h7f;
        endcase
    endfunction
    function ccode_ok;  // valid and not /E/ (T_TYPE C)
        input [7:0] x;
        ccode_ok = ccode(x) != 7'h7f && x != 8'hfe;
    endfunction
    function is_os;  // a sequence or signal ordered set character
        input [7:0] x;
        is_os = x == 8'h9c || x == 8'h5c;
    endfunction
    function [3:0] ocode;
        input [7:0] x;
        ocode = x == 8'h5c ? 4'hf : 4'h0;
    endfunction

    reg [2:0] ttype;
    reg [63:0] p;
    reg [1:0] h;
    integer k, tl, ok;
    wire [63:0] xd = xgmii_txd;
    wire [7:0] xc = xgmii_txc;
    always @* begin
        ttype = T_E; p = EBLOCK_T; h = 2'b01; ok = 1; tl = -1;
        if (xc == 8'h00) begin
            ttype = T_D; p = xd; h = 2'b10;
        end else if (xc == 8'hff && xd[7:0] != 8'hfd) begin
            p = 64'h1e;
            for (k = 0; k < 8; k = k + 1) begin
                p[8+7*k +: 7] = ccode(xd[8*k +: 8]); ok = ok & ccode_ok(xd[8*k +: 8]);
            end
            ttype = ok ? T_C : T_E;
        end else if (xc == 8'h01 && xd[7:0] == 8'hfb) begin
            p = {xd[63:8], 8'h78}; ttype = T_S;
        end else if (xc == 8'h1f && xd[39:32] == 8'hfb) begin
            p = {xd[63:40], 4'h0, 28'h0, 8'h33};
            for (k = 0; k < 4; k = k + 1) begin
                p[8+7*k +: 7] = ccode(xd[8*k +: 8]); ok = ok & (ccode(xd[8*k +: 8]) != 7'h7f);
            end
            ttype = ok ? T_S : T_E;
        end else if (xc == 8'h11 && xd[39:32] == 8'hfb && is_os(xd[7:0])) begin
            p = {xd[63:40], 4'h0, ocode(xd[7:0]), xd[31:8], 8'h66}; ttype = T_S;
        end else if (xc == 8'h11 && is_os(xd[7:0]) && is_os(xd[39:32])) begin
            p = {xd[63:40], ocode(xd[39:32]), ocode(xd[7:0]), xd[31:8], 8'h55}; ttype = T_C;
        end else if (xc == 8'hf1 && is_os(xd[7:0])) begin
            p = {28'h0, ocode(xd[7:0]), xd[31:8], 8'h4b};
            for (k = 4; k < 8; k = k + 1) begin
                p[36+7*(k-4) +: 7] = ccode(xd[8*k +: 8]); ok = ok & ccode_ok(xd[8*k +: 8]);
            end
            ttype = ok ? T_C : T_E;
        end else if (xc == 8'h1f && is_os(xd[39:32])) begin
            p = {xd[63:40], ocode(xd[39:32]), 28'h0, 8'h2d};
            for (k = 0; k < 4; k = k + 1) begin
                p[8+7*k +: 7] = ccode(xd[8*k +: 8]); ok = ok & ccode_ok(xd[8*k +: 8]);
            end
            ttype = ok ? T_C : T_E;
        end else begin
            for (k = 7; k >= 0; k = k - 1)
                if (xc == (8'hff << k) && xd[8*k +: 8] == 8'hfd) tl = k;
            if (tl >= 0) begin
                // the data before the /T/; the /T/'s own bits and the pad are zero
                p = (xd << 8) & ((64'd1 << (8 + 8 * tl)) - 1);
`ifdef BUG_T7_TYPE
                p[7:0] = tl == 0 ? 8'h87 : tl == 1 ? 8'h99 : tl == 2 ? 8'haa : tl == 3 ? 8'hb4 :
                         tl == 4 ? 8'hcc : tl == 5 ? 8'hd2 : 8'he1;
`else
                p[7:0] = tl == 0 ? 8'h87 : tl == 1 ? 8'h99 : tl == 2 ? 8'haa : tl == 3 ? 8'hb4 :
                         tl == 4 ? 8'hcc : tl == 5 ? 8'hd2 : tl == 6 ? 8'he1 : 8'hff;
`endif
                for (k = tl + 1; k < 8; k = k + 1) begin
                    p[8+7*k +: 7] = ccode(xd[8*k +: 8]); ok = ok & (ccode(xd[8*k +: 8]) != 7'h7f);
                end
                ttype = ok ? T_T : T_E;
            end
        end
    end

    // ---- transmit state diagram (Fig. 49-16) and scrambler (49.2.6)
    reg [2:0] state = TX_INIT;
    reg [2:0] next;
    always @* begin
        case (state)
            TX_INIT, TX_C, TX_T:
                next = ttype == T_C ? TX_C : ttype == T_S ? TX_D : TX_E;
            TX_D:
                next = ttype == T_D ? TX_D : ttype == T_T ? TX_T : TX_E;
            default:
                next = ttype == T_D ? TX_D : ttype == T_C ? TX_C : ttype == T_T ? TX_T : TX_E;
        endcase
    end
    reg [57:0] scr = {58{1'b1}};
    reg [63:0] line;
    reg [63:0] blk;
    reg [57:0] st;
    integer i;
    always @* begin
        blk = next == TX_E ? EBLOCK_T : p;
        st = scr;
        for (i = 0; i < 64; i = i + 1) begin
            line[i] = blk[i] ^ st[19] ^ st[0];
            st = {line[i], st[57:1]};
        end
    end
    always @(posedge clk) begin
        if (rst) begin
            state <= TX_INIT; scr <= {58{1'b1}};
            serdes_tx_hdr <= 2'b01; serdes_tx_data <= LBLOCK_T;
        end else begin
            state <= next;
            serdes_tx_hdr <= next == TX_E ? 2'b01 : h;
            serdes_tx_data <= line;
            scr <= st;
        end
    end
endmodule

// The example DUT's 10G MAC and reconciliation sublayer (IEEE 802.3 Clauses 4 and 46), for
// baser's conformance catalogue (docs/conformance.md). Byte-serial state machines run over
// the eight lanes of a 64-bit XGMII transfer each clock: slow to synthesise, easy to read.
//
// conf_mac_rx: XGMII -> AXI-stream (DA..payload, FCS stripped; tuser[0] = bad frame on the
//   last beat), error pulses, counters, the link fault state machine (46.3.4, Fig. 46-11).
// conf_mac_tx: AXI-stream (DA..payload; tuser[0] on the last beat aborts) -> XGMII:
//   store-and-forward FIFO, preamble, SFD, padding to 60, FCS, /T/; IFG with the deficit
//   idle count (46.3.1.4), reset when idle; Remote Fault sent while Local Fault is received,
//   Idle while Remote Fault is (46.3.4).
//
// Planted bugs (each off unless its `define is given):
//   BUG_GOOD_FLAG   a good frame whose /T/ is in lane 7 also raises the bad-frame flags.
//   BUG_IFG8_DROP   a frame whose /S/ follows a gap of exactly 8 octets is not received.
//   BUG_NO_DIC      the transmitter ignores the deficit idle count (gaps rounded up).
//   BUG_NO_RF       the transmitter ignores a received Local Fault: it keeps sending frames
//                   and idles, never Remote Fault (46.3.4).
`timescale 1ns / 1ps

module conf_mac_rx #(
    parameter integer MAX_FRAME = 1518  // octets with FCS (4.4.2)
) (
    input  wire        clk,
    input  wire        rst,
    input  wire [63:0] xgmii_rxd,
    input  wire [7:0]  xgmii_rxc,
    output reg  [63:0] rx_axis_tdata = 0,
    output reg  [7:0]  rx_axis_tkeep = 0,
    output reg         rx_axis_tvalid = 0,
    output reg         rx_axis_tlast = 0,
    output reg         rx_axis_tuser = 0,
    output reg         rx_error_bad_frame = 0,  // one clock per bad frame
    output reg         rx_error_bad_fcs = 0,    // one clock per frame with a bad FCS
    output reg  [31:0] rx_frames_good = 0,
    output reg  [31:0] rx_frames_bad = 0,
    output reg  [31:0] rx_fcs_errors = 0,
    output reg         rx_local_fault = 0,      // link_fault = Local Fault
    output reg         rx_remote_fault = 0      // link_fault = Remote Fault
);
    function [31:0] crc8;
        input [31:0] c;
        input [7:0] b;
        integer j;
        begin
            crc8 = c ^ b;
            for (j = 0; j < 8; j = j + 1)
                crc8 = crc8[0] ? (crc8 >> 1) ^ 32'hedb88320 : crc8 >> 1;
        end
    endfunction

    localparam [1:0] S_IDLE = 0, S_PRE = 1, S_DATA = 2;
    reg [7:0] ring [0:32767];
    reg [14:0] wp = 0, rp = 0, fstart = 0;
    reg [14:0] q_start [0:15];
    reg [15:0] q_len [0:15];
    reg q_bad [0:15];
    reg [3:0] q_wr = 0, q_rd = 0;
    reg [15:0] out_left = 0;
    reg [1:0] st = S_IDLE;
    reg [2:0] pcnt;
    reg pre_bad, err_char;
    reg [31:0] crc;
    reg [15:0] flen;
    reg [15:0] gap = 16'd100;
    integer l, m;
    reg [7:0] b;
    reg ctl, bad, good, fcs_bad;
    reg [3:0] q_wr_n;
    reg [15:0] olen;

    // link fault (Fig. 46-11): per column; 2'd1 local, 2'd2 remote
    reg [1:0] lf_state = 0;  // 0 INIT, 1 COUNT, 2 FAULT
    reg [1:0] last_seq = 0, fault = 0;
    reg [2:0] seq_cnt = 0;
    reg [7:0] col_cnt = 0;
    reg [1:0] seq;
    integer cidx;

    task end_frame;  // the octet that ended it was a control character
        begin
            fcs_bad = crc != 32'hdebb20e3;  // residue of a good frame + FCS
            bad = pre_bad || err_char || fcs_bad || flen < 64 || flen > MAX_FRAME;
`ifdef BUG_GOOD_FLAG
            good = !bad;
            if (good && l == 7 && b == 8'hfd) bad = 1'b1;
`endif
            olen = flen >= 4 ? flen - 4 : 0;
            if (olen != 0) begin
                q_start[q_wr_n] = fstart; q_len[q_wr_n] = olen; q_bad[q_wr_n] = bad;
                q_wr_n = q_wr_n + 1;
            end
            if (bad) begin
                rx_error_bad_frame <= 1'b1; rx_frames_bad <= rx_frames_bad + 1;
                if (fcs_bad && !err_char && flen >= 64 && flen <= MAX_FRAME) begin  // 4.2.9: valid lengths only
                    rx_error_bad_fcs <= 1'b1; rx_fcs_errors <= rx_fcs_errors + 1;
                end
            end else rx_frames_good <= rx_frames_good + 1;
            st = S_IDLE;
        end
    endtask

    always @(posedge clk) begin
        rx_error_bad_frame <= 1'b0;
        rx_error_bad_fcs <= 1'b0;
        q_wr_n = q_wr;
        for (l = 0; l < 8; l = l + 1) begin
            b = xgmii_rxd[8*l +: 8];
            ctl = xgmii_rxc[l];
            case (st)
                S_IDLE: begin
                    if (ctl && b == 8'hfb && (l == 0 || l == 4)) begin
`ifdef BUG_IFG8_DROP
                        if (gap != 8) begin
`else
                        begin
`endif
                            st = S_PRE; pcnt = 0; pre_bad = 0; err_char = 0;
                            crc = 32'hffffffff; flen = 0; fstart = wp;
                        end
                    end
                    if (gap != 16'hffff) gap = gap + 1;
                end
                S_PRE: begin
                    if (ctl) begin  // cut inside the preamble: nothing to deliver
                        rx_error_bad_frame <= 1'b1; rx_frames_bad <= rx_frames_bad + 1;
                        st = S_IDLE; gap = 1;
                    end else begin
                        if (pcnt == 6) begin
                            if (b != 8'hd5) pre_bad = 1;
                            st = S_DATA;
                        end else if (b != 8'h55) pre_bad = 1;
                        pcnt = pcnt + 1;
                    end
                end
                default: begin  // S_DATA
                    if (ctl) begin
                        if (b != 8'hfd) err_char = 1;
                        end_frame;
                        gap = 1;
                    end else begin
                        ring[wp] = b; wp = wp + 1;
                        crc = crc8(crc, b);
                        if (flen != 16'hffff) flen = flen + 1;
                    end
                end
            endcase
        end
        q_wr <= q_wr_n;

        // AXI-stream out: one beat of the oldest finished frame per clock
        rx_axis_tvalid <= 1'b0; rx_axis_tlast <= 1'b0; rx_axis_tuser <= 1'b0;
        if (out_left == 0 && q_rd != q_wr) begin
            rp = q_start[q_rd]; out_left = q_len[q_rd];
        end
        if (out_left != 0) begin
            for (m = 0; m < 8; m = m + 1) begin
                rx_axis_tdata[8*m +: 8] <= m < out_left ? ring[(rp + m) % 32768] : 8'h00;
                rx_axis_tkeep[m] <= m < out_left;
            end
            rx_axis_tvalid <= 1'b1;
            if (out_left <= 8) begin
                rx_axis_tlast <= 1'b1; rx_axis_tuser <= q_bad[q_rd];
                out_left = 0; q_rd <= q_rd + 1;
            end else begin
                out_left = out_left - 8; rp = rp + 8;
            end
        end

        // link fault state machine, two columns a transfer
        for (cidx = 0; cidx < 2; cidx = cidx + 1) begin
            seq = 0;
            if (xgmii_rxc[4*cidx +: 4] == 4'b0001 && xgmii_rxd[32*cidx +: 8] == 8'h9c &&
                xgmii_rxd[32*cidx+8 +: 16] == 16'h0000) begin
                if (xgmii_rxd[32*cidx+24 +: 8] == 8'h01) seq = 1;
                if (xgmii_rxd[32*cidx+24 +: 8] == 8'h02) seq = 2;
            end
            case (lf_state)
                0: if (seq != 0) begin lf_state = 1; last_seq = seq; seq_cnt = 1; col_cnt = 0; end
                1: begin
                    if (col_cnt + 1 >= 128) begin
                        lf_state = 0; fault = 0; seq_cnt = 0; col_cnt = 0; last_seq = 0;
                        if (seq != 0) begin lf_state = 1; last_seq = seq; seq_cnt = 1; end
                    end else if (seq == 0) col_cnt = col_cnt + 1;
                    else if (seq == last_seq) begin
                        col_cnt = col_cnt + 1; seq_cnt = seq_cnt + 1;
                        if (seq_cnt >= 4) begin col_cnt = 0; fault = seq; lf_state = 2; end
                    end else begin last_seq = seq; seq_cnt = 1; col_cnt = 0; end
                end
                default: begin
                    if (seq == 0) begin
                        if (col_cnt + 1 >= 128) begin
                            lf_state = 0; fault = 0; seq_cnt = 0; col_cnt = 0; last_seq = 0;
                        end else col_cnt = col_cnt + 1;
                    end else if (seq == last_seq) col_cnt = 0;
                    else begin lf_state = 1; last_seq = seq; seq_cnt = 1; col_cnt = 0; end
                end
            endcase
        end
        rx_local_fault <= fault == 1;
        rx_remote_fault <= fault == 2;

        if (rst) begin
            st = S_IDLE; gap = 100; wp = 0; q_wr <= 0; q_rd <= 0; out_left = 0;
            rx_axis_tvalid <= 1'b0; rx_error_bad_frame <= 1'b0; rx_error_bad_fcs <= 1'b0;
            rx_frames_good <= 0; rx_frames_bad <= 0; rx_fcs_errors <= 0;
            lf_state = 0; fault = 0; seq_cnt = 0; col_cnt = 0; last_seq = 0;
            rx_local_fault <= 1'b0; rx_remote_fault <= 1'b0;
        end
    end
endmodule

module conf_mac_tx #(
    parameter integer IFG = 12,  // octets, the /T/ included
    parameter integer DIC = 1    // the deficit idle count of 46.3.1.4
) (
    input  wire        clk,
    input  wire        rst,
    input  wire [63:0] tx_axis_tdata,
    input  wire [7:0]  tx_axis_tkeep,
    input  wire        tx_axis_tvalid,
    output wire        tx_axis_tready,
    input  wire        tx_axis_tlast,
    input  wire        tx_axis_tuser,
    input  wire        local_fault,   // the receiver's link_fault
    input  wire        remote_fault,
    // not idle until reset: the reset's idles are then an event that the encoder's
    // always @* blocks see (Icarus does not run them at time 0)
    output reg  [63:0] xgmii_txd = 64'd0,
    output reg  [7:0]  xgmii_txc = 8'd0,
    output reg  [31:0] tx_frames = 0
);
    function [31:0] crc8;
        input [31:0] c;
        input [7:0] b;
        integer j;
        begin
            crc8 = c ^ b;
            for (j = 0; j < 8; j = j + 1)
                crc8 = crc8[0] ? (crc8 >> 1) ^ 32'hedb88320 : crc8 >> 1;
        end
    endfunction

    // store-and-forward FIFO of octets and a queue of finished frames (length, abort)
    reg [7:0] fifo [0:16383];
    reg [13:0] wp = 0, rp = 0;
    reg [14:0] used = 0;
    reg [15:0] in_len = 0;
    reg [15:0] q_len [0:7];
    reg q_abort [0:7];
    reg [2:0] q_wr = 0, q_rd = 0;
    reg [3:0] q_count = 0;
    assign tx_axis_tready = !rst && used < 16384 - 16 && q_count < 7;

    localparam [2:0] S_GAP = 0, S_PRE = 1, S_DATA = 2, S_PAD = 3, S_FCS = 4;
    reg [2:0] st = S_GAP;
    reg [15:0] gap = 16'd100;  // octets since the /T/, the /T/ included
    reg [1:0] dic = 0;
    reg [3:0] pcnt;
    reg [15:0] left, sent;
    reg abort;
    reg aborted = 1'b0;  // the last frame was aborted: its /T/ block is an error block
    reg [31:0] crc;
    integer l, owed, n;
    reg [7:0] b;
    reg c;
    reg [3:0] q_count_n;
    reg [14:0] used_n;
    reg use_dic;
    // the receiver's Local Fault as the transmitter reacts to it
`ifdef BUG_NO_RF
    wire lf = 1'b0;
`else
    wire lf = local_fault;
`endif

    always @(posedge clk) begin
        // AXI-stream in
        q_count_n = q_count;
        used_n = used;
        if (tx_axis_tvalid && tx_axis_tready) begin
            n = 0;
            for (l = 0; l < 8; l = l + 1)
                if (tx_axis_tkeep[l]) begin
                    fifo[wp] = tx_axis_tdata[8*l +: 8]; wp = wp + 1; n = n + 1;
                end
            in_len = in_len + n; used_n = used_n + n;
            if (tx_axis_tlast) begin
                q_len[q_wr] = in_len; q_abort[q_wr] = tx_axis_tuser;
                q_wr = q_wr + 1; q_count_n = q_count_n + 1; in_len = 0;
            end
        end
        // XGMII out, a lane at a time
`ifdef BUG_NO_DIC
        use_dic = 0;
`else
        use_dic = DIC != 0;
`endif
        for (l = 0; l < 8; l = l + 1) begin
            b = 8'h07; c = 1'b1;
            case (st)
                S_GAP: begin
                    // after an abort the /E/ /T/ transfer is an E block; the transmit state
                    // diagram stays in TX_E on an S block, so keep a whole idle block between
                    owed = IFG + (aborted ? 8 : 0) - gap;
                    if ((l == 0 || l == 4) && q_count_n != 0 && !lf && !remote_fault &&
                        (owed <= 0 || (use_dic && owed + dic <= 3))) begin
                        if (owed > 0) dic = dic + owed;
                        else if (dic > -owed) dic = dic + owed;
                        else dic = 0;
                        b = 8'hfb; st = S_PRE; pcnt = 0; aborted = 1'b0;
                        left = q_len[q_rd]; abort = q_abort[q_rd]; sent = 0;
                        crc = 32'hffffffff;
                    end else begin
                        if (gap != 16'hffff) gap = gap + 1;
                        if (gap > IFG + 3) dic = 0;  // idle: the count starts afresh
                        if (lf && (l == 0 || l == 4)) begin
                            b = 8'h9c;  // Remote Fault column: 9c 00 00 02
                        end else if (lf && (l == 3 || l == 7)) begin
                            b = 8'h02; c = 1'b0;
                        end else if (lf) begin
                            b = 8'h00; c = 1'b0;
                        end
                    end
                end
                S_PRE: begin
                    c = 1'b0; b = pcnt == 6 ? 8'hd5 : 8'h55; pcnt = pcnt + 1;
                    if (pcnt == 7) st = left != 0 ? S_DATA : S_PAD;
                end
                S_DATA: begin
                    c = 1'b0; b = fifo[rp]; rp = rp + 1; used_n = used_n - 1;
                    crc = crc8(crc, b); left = left - 1; sent = sent + 1;
                    if (left == 0) st = sent < 60 ? S_PAD : S_FCS;
                    pcnt = 0;
                end
                S_PAD: begin
                    c = 1'b0; b = 8'h00; crc = crc8(crc, b); sent = sent + 1;
                    if (sent == 60) st = S_FCS;
                    pcnt = 0;
                end
                default: begin  // S_FCS, then the /T/ (or /E/ /T/ when aborted)
                    if (pcnt < 4 && abort && pcnt == 0) begin
                        b = 8'hfe; pcnt = 4; aborted = 1'b1;  // abort: /E/ where the FCS begins
                    end else if (pcnt < 4) begin
                        c = 1'b0; b = ~crc[8*pcnt +: 8]; pcnt = pcnt + 1;
                    end else begin
                        b = 8'hfd; st = S_GAP; gap = 1;
                        q_rd = q_rd + 1; q_count_n = q_count_n - 1; tx_frames <= tx_frames + 1;
                    end
                end
            endcase
            xgmii_txd[8*l +: 8] <= b;
            xgmii_txc[l] <= c;
        end
        q_count <= q_count_n;
        used <= used_n;
        if (rst) begin
            wp = 0; rp = 0; used <= 0; in_len = 0; q_wr = 0; q_rd = 0; q_count <= 0;
            st = S_GAP; gap = 100; dic = 0; tx_frames <= 0; aborted = 1'b0;
            xgmii_txd <= 64'h0707070707070707; xgmii_txc <= 8'hff;
        end
    end
endmodule

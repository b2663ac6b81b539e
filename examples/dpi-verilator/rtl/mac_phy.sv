// mac_phy.sv: a small 10GBASE-R MAC + PCS, the DUT that CI runs docs/dpi.md's own bench on
// (.ci/dpi-doc). It has the shape of a third-party 10G MAC+PHY for an FPGA serdes:
//
//   serdes_rx_hdr/data (66-bit units) -> block lock by bit slip (serdes_rx_slip) ->
//       descrambler -> 64b/66b decoder -> rx_axis (64-bit AXI stream: DA..FCS, tuser on a
//       frame the decoder saw an error in)
//   tx_axis (64-bit AXI stream: DA..payload, at least 60 octets) -> MAC (preamble, FCS, IFG
//       of 12 octets or more) -> 64b/66b encoder -> scrambler -> serdes_tx_hdr/data
//
// Block lock as IEEE Fig. 49-14 searches for it: while unlocked, one invalid sync header asks
// the serdes for a bit slip, and the search waits SLIP_WAIT clocks before it tests headers
// again (a serdes takes some clocks to slip); 64 valid headers in a row give lock; 16 invalid
// in a window of 64 lose it. Frames start in lane 0 or 4 on receive, in lane 0 on transmit;
// the MAC does not pad (frames of 60 octets or more are given).
//
// Bit order as baser's: bit 0 of data and hdr is first on the wire; hdr 2'd2 is a data
// block, 2'd1 a control block. AXI lane i is tdata[8i+7:8i], octet i of the beat.
//
// Planted faults (the negative tests of .ci/dpi-doc), by `define MAC_PHY_FAULT (default 0):
//   1  received frame FAULT_N: bit 3 of its second beat is flipped on rx_axis;
//   2  transmitted frame FAULT_N: bit 21 of its first data block is flipped before scrambling.
`ifndef MAC_PHY_FAULT
`define MAC_PHY_FAULT 0
`endif
module mac_phy #(
    parameter int SLIP_WAIT = 16,
    parameter int FAULT     = `MAC_PHY_FAULT,
    parameter int FAULT_N   = 5
) (
    input  logic        clk,
    input  logic        rst,
    // serdes receive side: one 66-bit unit a clock, header first; the slip request
    input  logic [1:0]  serdes_rx_hdr,
    input  logic [63:0] serdes_rx_data,
    output logic        serdes_rx_slip,
    // serdes transmit side: one block a clock
    output logic [1:0]  serdes_tx_hdr,
    output logic [63:0] serdes_tx_data,
    // frames to send
    input  logic [63:0] tx_axis_tdata,
    input  logic [7:0]  tx_axis_tkeep,
    input  logic        tx_axis_tvalid,
    input  logic        tx_axis_tlast,
    output logic        tx_axis_tready,
    // frames received
    output logic [63:0] rx_axis_tdata,
    output logic [7:0]  rx_axis_tkeep,
    output logic        rx_axis_tvalid,
    output logic        rx_axis_tlast,
    output logic        rx_axis_tuser,
    output logic        rx_block_lock
);

    localparam logic [1:0] SYNC_DATA = 2'd2;
    localparam logic [1:0] SYNC_CTRL = 2'd1;

    // ------------------------------------------------------------ scrambler (1 + x^39 + x^58)
    // state bit 0 is the oldest of the last 58 line bits
    function automatic logic [63:0] scramble(input logic [63:0] d, input logic [57:0] state);
        logic [121:0] s;
        s = {64'd0, state};
        for (int i = 0; i < 64; i++)
            s[58 + i] = d[i] ^ s[i + 19] ^ s[i];
        return s[121:58];
    endfunction

    function automatic logic [63:0] descramble(input logic [63:0] line, input logic [57:0] state);
        logic [121:0] s;
        logic [63:0]  d;
        s = {line, state};
        for (int i = 0; i < 64; i++)
            d[i] = line[i] ^ s[i + 19] ^ s[i];
        return d;
    endfunction

    // ------------------------------------------------------------ CRC-32 of the FCS
    // reflected, polynomial 0xEDB88320, over the first n octets of d
    function automatic logic [31:0] crc_octets(input logic [31:0] c, input logic [63:0] d,
                                               input int n);
        for (int i = 0; i < 8; i++) begin
            if (i < n) begin
                c = c ^ {24'd0, d[8*i +: 8]};
                for (int b = 0; b < 8; b++)
                    c = (c >> 1) ^ (32'hedb88320 & {32{c[0]}});
            end
        end
        return c;
    endfunction

    // ============================================================ receive
    // ------------------------------------------------------------ block lock by bit slip
    logic [6:0] sh_cnt;
    logic [4:0] sh_invld_cnt;
    logic       block_lock;
    logic [7:0] slip_wait;
    logic       sh_valid;

    assign sh_valid = serdes_rx_hdr == SYNC_DATA || serdes_rx_hdr == SYNC_CTRL;
    assign rx_block_lock = block_lock;

    always_ff @(posedge clk) begin
        serdes_rx_slip <= 1'b0;
        if (rst) begin
            sh_cnt       <= 0;
            sh_invld_cnt <= 0;
            block_lock   <= 1'b0;
            slip_wait    <= 0;
        end else if (slip_wait != 0) begin
            slip_wait <= slip_wait - 1;
        end else if (!block_lock) begin
            if (!sh_valid) begin
                serdes_rx_slip <= 1'b1;
                slip_wait      <= 8'(SLIP_WAIT);
                sh_cnt         <= 0;
            end else if (sh_cnt == 63) begin
                block_lock   <= 1'b1;
                sh_cnt       <= 0;
                sh_invld_cnt <= 0;
            end else begin
                sh_cnt <= sh_cnt + 1;
            end
        end else if (!sh_valid && sh_invld_cnt == 15) begin
            block_lock     <= 1'b0;
            serdes_rx_slip <= 1'b1;
            slip_wait      <= 8'(SLIP_WAIT);
            sh_cnt         <= 0;
            sh_invld_cnt   <= 0;
        end else if (sh_cnt == 63) begin
            sh_cnt       <= 0;
            sh_invld_cnt <= 0;
        end else begin
            sh_cnt       <= sh_cnt + 1;
            sh_invld_cnt <= sh_invld_cnt + 5'(!sh_valid);
        end
    end

    // ------------------------------------------------------------ descrambler
    logic [57:0] rx_scr;
    logic        d_lock;
    logic [1:0]  d_hdr;
    logic [63:0] d_data;

    always_ff @(posedge clk) begin
        rx_scr <= serdes_rx_data[63:6];
        d_hdr  <= serdes_rx_hdr;
        d_data <= descramble(serdes_rx_data, rx_scr);
        d_lock <= block_lock && !rst && slip_wait == 0;
    end

    // ------------------------------------------------------------ decoder: octets of frames
    // Per block: the frame's octets in it (oct, n of them from lane 0), whether a frame starts
    // or ends in it, and whether it is in error.
    logic        in_frame;
    logic        skip4;          // the block after a lane-4 /S/: its lanes 0..3 are preamble
    logic        e_start, e_end, e_err;
    logic [63:0] e_oct;
    logic [3:0]  e_n;

    always_comb begin
        e_start = 1'b0;
        e_end = 1'b0;
        e_err = 1'b0;
        e_oct = 64'd0;
        e_n = 4'd0;
        if (!d_lock) begin
            e_end = in_frame;
            e_err = in_frame;
        end else if (d_hdr == SYNC_DATA) begin
            if (in_frame) begin
                e_oct = skip4 ? d_data >> 32 : d_data;
                e_n = skip4 ? 4'd4 : 4'd8;
            end
        end else if (d_hdr == SYNC_CTRL) begin
            case (d_data[7:0])
                8'h78, 8'h33: begin
                    e_end = in_frame;      // a start inside a frame: that frame is cut short
                    e_err = in_frame;
                    e_start = 1'b1;
                end
                8'h87, 8'h99, 8'haa, 8'hb4, 8'hcc, 8'hd2, 8'he1, 8'hff: begin
                    e_end = in_frame;
                    case (d_data[7:0])
                        8'h87: e_n = 4'd0;
                        8'h99: e_n = 4'd1;
                        8'haa: e_n = 4'd2;
                        8'hb4: e_n = 4'd3;
                        8'hcc: e_n = 4'd4;
                        8'hd2: e_n = 4'd5;
                        8'he1: e_n = 4'd6;
                        default: e_n = 4'd7;
                    endcase
                    if (!in_frame) e_n = 4'd0;
                    e_oct = d_data >> 8;
                end
                default: begin             // idles, ordered sets, errors: a frame ends in error
                    e_end = in_frame;
                    e_err = in_frame;
                end
            endcase
        end else begin                     // an invalid sync header
            e_err = in_frame;
        end
    end

    // ------------------------------------------------------------ octets to beats
    logic [119:0] acc;           // octets not yet in a beat, octet 0 in bits 7:0
    logic [3:0]   acc_n;
    logic         acc_err;
    logic         leftover;      // a last beat is still to go out (the frame's end had > 8)
    logic [127:0] joined;
    logic [4:0]   total;
    int unsigned  rx_frames;     // frames started (FAULT = 1)
    int unsigned  rx_beat;       // beats of the frame out so far

    function automatic logic [63:0] octets_mask(input logic [3:0] n);
        return n >= 8 ? {64{1'b1}} : (64'd1 << (8 * n)) - 64'd1;
    endfunction

    function automatic logic [7:0] keep_of(input logic [4:0] n);
        return n >= 8 ? 8'hff : 8'((9'd1 << n) - 9'd1);
    endfunction

    assign joined = ({8'd0, acc} & ((128'd1 << (8 * acc_n)) - 128'd1))
                    | ({64'd0, e_oct & octets_mask(e_n)} << (8 * acc_n));
    assign total = 5'(acc_n) + 5'(e_n);

    always_ff @(posedge clk) begin
        logic        emit, last, user;
        logic [63:0] data;
        logic [7:0]  keep;
        emit = 1'b0;
        last = 1'b0;
        user = 1'b0;
        data = 64'd0;
        keep = 8'd0;
        rx_axis_tvalid <= 1'b0;
        rx_axis_tlast  <= 1'b0;
        rx_axis_tuser  <= 1'b0;
        if (rst) begin
            in_frame  <= 1'b0;
            skip4     <= 1'b0;
            acc_n     <= 0;
            acc_err   <= 1'b0;
            leftover  <= 1'b0;
            rx_frames <= 0;
            rx_beat   <= 0;
        end else begin
            if (leftover) begin
                {emit, last, user, data, keep} = {2'b11, acc_err, acc[63:0], keep_of(5'(acc_n))};
                acc_n    <= 0;
                acc_err  <= 1'b0;
                leftover <= 1'b0;
            end else if (in_frame && (e_n != 0 || e_end)) begin
                if (e_end && total <= 8) begin
                    {emit, last, user, data, keep} = {2'b11, acc_err || e_err, joined[63:0], keep_of(total)};
                    acc_n   <= 0;
                    acc_err <= 1'b0;
                end else if (total >= 8) begin
                    {emit, data, keep} = {1'b1, joined[63:0], 8'hff};
                    acc      <= {56'd0, joined[127:64]};
                    acc_n    <= 4'(total - 5'd8);
                    acc_err  <= acc_err || e_err;
                    leftover <= e_end;
                end else begin
                    acc     <= joined[119:0];
                    acc_n   <= 4'(total);
                    acc_err <= acc_err || e_err;
                end
            end else if (in_frame) begin
                acc_err <= acc_err || e_err;
            end
            if (emit) begin
                // FAULT = 1: a flipped bit on the second beat of received frame FAULT_N
                if (FAULT == 1 && rx_frames == FAULT_N + 1 && rx_beat == 1) data[3] = ~data[3];
                rx_axis_tdata  <= data;
                rx_axis_tkeep  <= keep;
                rx_axis_tvalid <= 1'b1;
                rx_axis_tlast  <= last;
                rx_axis_tuser  <= user;
                rx_beat        <= last ? 0 : rx_beat + 1;
            end
            if (e_start) begin
                in_frame  <= 1'b1;
                skip4     <= d_data[7:0] == 8'h33;
                acc_n     <= 0;
                acc_err   <= 1'b0;
                rx_frames <= rx_frames + 1;
                rx_beat   <= 0;
            end else begin
                if (e_end) in_frame <= 1'b0;
                if (d_lock && d_hdr == SYNC_DATA) skip4 <= 1'b0;
            end
        end
    end

    // ============================================================ transmit
    typedef enum logic [1:0] { TX_IDLE, TX_DATA, TX_TERM } tx_state_t;
    tx_state_t   tx_state;
    logic [31:0] tx_crc;
    logic [2:0]  ifg_left;       // idle blocks still owed before the next /S/
    logic [31:0] term_octets;    // FCS octets still to go in the /T/ block
    logic [2:0]  term_n;
    int unsigned tx_frames;      // frames started (FAULT = 2)
    logic        tx_first;       // the next data block is the frame's first
    logic [1:0]  t_hdr;
    logic [63:0] t_data;         // the block before scrambling
    logic [57:0] tx_scr;
    logic        tx_out;         // out of reset: blocks go out

    assign tx_axis_tready = tx_state == TX_DATA;

    // the /T/ block with the frame's last n octets (0..7) in lanes 0..n-1
    function automatic logic [63:0] term_block(input logic [63:0] oct, input logic [2:0] n);
        logic [7:0] t;
        case (n)
            3'd0: t = 8'h87;
            3'd1: t = 8'h99;
            3'd2: t = 8'haa;
            3'd3: t = 8'hb4;
            3'd4: t = 8'hcc;
            3'd5: t = 8'hd2;
            3'd6: t = 8'he1;
            default: t = 8'hff;
        endcase
        return ({oct[55:0], 8'd0} & ((64'd1 << (8 * (int'(n) + 1))) - 64'd1)) | {56'd0, t};
    endfunction

    // idle blocks after a /T/ in lane t: 12 octets of gap or more (the /T/ counts)
    function automatic logic [2:0] gap_after(input logic [2:0] t);
        return t <= 3'd4 ? 3'd1 : 3'd2;
    endfunction

    always_ff @(posedge clk) begin
        int          n;
        logic [31:0] fcs;
        logic [95:0] tail;
        t_hdr  <= SYNC_CTRL;
        t_data <= 64'h1e;                      // idle block
        if (rst) begin
            tx_state  <= TX_IDLE;
            ifg_left  <= 0;
            tx_frames <= 0;
            tx_first  <= 1'b0;
        end else begin
            case (tx_state)
                TX_IDLE: begin
                    if (ifg_left != 0) begin
                        ifg_left <= ifg_left - 1;
                    end else if (tx_axis_tvalid) begin
                        t_data   <= {8'hd5, {6{8'h55}}, 8'h78};
                        tx_state <= TX_DATA;
                        tx_crc   <= 32'hffffffff;
                        tx_first <= 1'b1;
                        tx_frames <= tx_frames + 1;
                    end
                end
                TX_DATA: begin
                    n = $countones(tx_axis_tkeep);
                    tx_first <= 1'b0;
                    if (!tx_axis_tvalid) begin
                        t_data <= 64'h1e;          // an underrun: the frame is lost (idle)
                    end else if (!tx_axis_tlast) begin
                        t_hdr  <= SYNC_DATA;
                        t_data <= tx_axis_tdata;
                        if (FAULT == 2 && tx_first && tx_frames == FAULT_N + 1)
                            t_data <= tx_axis_tdata ^ (64'd1 << 21);
                        tx_crc <= crc_octets(tx_crc, tx_axis_tdata, 8);
                    end else begin
                        fcs = ~crc_octets(tx_crc, tx_axis_tdata, n);
                        // the last octets and the FCS, n + 4 of them
                        tail = ({32'd0, tx_axis_tdata} & ((96'd1 << (8 * n)) - 96'd1))
                               | ({64'd0, fcs} << (8 * n));
                        if (n + 4 <= 7) begin
                            t_data   <= term_block(tail[63:0], 3'(n + 4));
                            tx_state <= TX_IDLE;
                            ifg_left <= gap_after(3'(n + 4));
                        end else begin
                            t_hdr       <= SYNC_DATA;
                            t_data      <= tail[63:0];
                            term_octets <= tail[95:64];
                            term_n      <= 3'(n + 4 - 8);
                            tx_state    <= TX_TERM;
                        end
                    end
                end
                default: begin                     // TX_TERM
                    t_data   <= term_block({32'd0, term_octets}, term_n);
                    tx_state <= TX_IDLE;
                    ifg_left <= gap_after(term_n);
                end
            endcase
        end
    end

    // ------------------------------------------------------------ scrambler, outputs
    // held at 0 during reset (the reset fill a checker skips); the scrambler is not reset
    assign serdes_tx_hdr  = tx_out ? t_hdr : 2'd0;
    assign serdes_tx_data = tx_out ? scramble(t_data, tx_scr) : 64'd0;

    always_ff @(posedge clk) begin
        tx_out <= !rst;
        if (tx_out) tx_scr <= serdes_tx_data[63:6];
    end

endmodule

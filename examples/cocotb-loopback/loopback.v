// A register pipeline for a 10GBASE-R serdes interface: the 66 bits a serdes gives each clock
// ({data, header}) come out STAGES clocks later, unchanged. What the cocotb test bench of
// this folder loops baser's BaseRSerdesSource into and its BaseRSerdesSink out of.
//
// A second pipeline does the same for a 32-bit interface (a block over two clocks, the header
// with the first, marked by hdr_valid) with its data_valid, and the 64-bit one carries a
// data_valid too (gearbox stall cycles have it low).
//
// Three XGMII ports (two 64-bit, one 32-bit) are registered through STAGES clocks the same
// way, for the XGMII source and sink tests.
//
// FAULT_BLOCK >= 0 plants a fault: the first data block (header 2) that enters at or after
// clock FAULT_BLOCK has payload bit 20 flipped (one line bit: three descrambled bit errors,
// a frame with a bad FCS), as a broken datapath would.
`timescale 1ns / 1ps

module loopback #(
    parameter integer STAGES = 3,
    parameter integer FAULT_BLOCK = -1
) (
    input  wire        clk,
    input  wire [63:0] rx_data,
    input  wire [1:0]  rx_hdr,
    input  wire        rx_valid,
    output wire [63:0] tx_data,
    output wire [1:0]  tx_hdr,
    output wire        tx_valid,

    input  wire [31:0] rx_data32,
    input  wire [1:0]  rx_hdr32,
    input  wire        rx_hdr_valid32,
    input  wire        rx_valid32,
    output wire [31:0] tx_data32,
    output wire [1:0]  tx_hdr32,
    output wire        tx_hdr_valid32,
    output wire        tx_valid32,

    input  wire [63:0] xa_d,
    input  wire [7:0]  xa_c,
    output wire [63:0] xa_qd,
    output wire [7:0]  xa_qc,
    input  wire [63:0] xb_d,
    input  wire [7:0]  xb_c,
    output wire [63:0] xb_qd,
    output wire [7:0]  xb_qc,
    input  wire [31:0] x32_d,
    input  wire [3:0]  x32_c,
    output wire [31:0] x32_qd,
    output wire [3:0]  x32_qc
);
    reg [65:0] pipe [0:STAGES-1];
    reg [STAGES-1:0] valid = 0;
    reg [35:0] pipe32 [0:STAGES-1];
    reg [179:0] xpipe [0:STAGES-1];
    integer cycle = 0;
    reg planted = 1'b0;
    integer i;

    wire hit = FAULT_BLOCK >= 0 && !planted && cycle >= FAULT_BLOCK && rx_hdr == 2'd2;

    initial begin
        for (i = 0; i < STAGES; i = i + 1)
        begin
            pipe[i] = 66'd0;
            pipe32[i] = 36'd0;
            xpipe[i] = 180'd0;
        end
    end

    always @(posedge clk) begin
        cycle <= cycle + 1;
        if (hit)
            planted <= 1'b1;
        pipe[0] <= {rx_data ^ (hit ? 64'h0000_0000_0010_0000 : 64'd0), rx_hdr};
        valid <= {valid, rx_valid === 1'b1};
        pipe32[0] <= {rx_data32, rx_hdr32, rx_hdr_valid32 === 1'b1, rx_valid32 === 1'b1};
        xpipe[0] <= {xa_d, xa_c, xb_d, xb_c, x32_d, x32_c};
        for (i = 1; i < STAGES; i = i + 1) begin
            pipe[i] <= pipe[i-1];
            pipe32[i] <= pipe32[i-1];
            xpipe[i] <= xpipe[i-1];
        end
    end

    assign tx_data = pipe[STAGES-1][65:2];
    assign tx_hdr = pipe[STAGES-1][1:0];
    assign tx_valid = valid[STAGES-1];
    assign tx_data32 = pipe32[STAGES-1][35:4];
    assign tx_hdr32 = pipe32[STAGES-1][3:2];
    assign tx_hdr_valid32 = pipe32[STAGES-1][1];
    assign tx_valid32 = pipe32[STAGES-1][0];
    assign {xa_qd, xa_qc, xb_qd, xb_qc, x32_qd, x32_qc} = xpipe[STAGES-1];
endmodule

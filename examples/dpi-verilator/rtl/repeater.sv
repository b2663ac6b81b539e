// repeater.sv: a 10GBASE-R block repeater (retimer), the example DUT of
// examples/dpi-verilator. Scrambled 66-bit blocks in, one per clock; the same blocks out,
// descrambled and scrambled again with the repeater's own scrambler, LATENCY clocks later.
//
//   - stage 0 registers the input block; stage 1 descrambles it (self-synchronizing
//     1 + x^39 + x^58: the descrambler state is the last 58 received line bits, so it is
//     right from the second block on whatever it started from); stage 2 scrambles it with the
//     transmit scrambler, whose state is the last 58 bits sent and starts from TX_SEED (not
//     reset: 49.2.6 defines no initial value), then registers the output;
//   - synchronous, active-high reset: while rst is high, and until the first block received
//     after it reaches the output, out_hdr / out_data hold 0 (the "reset fill" that the
//     checker skips). The data path registers and the descrambler run during reset too.
//
// Bit order: hdr is the sync header as an integer whose bit 0 is first on the wire
// (2'd2 = data block, IEEE "01"; 2'd1 = control block, IEEE "10"); data bit 0 is first on
// the wire. The header passes through unchanged.
//
// Planted faults, for the negative tests (FAULT_N counts from 0):
//   FAULT = 0  none;
//   FAULT = 1  the FAULT_N-th output block after reset goes out with the invalid sync
//              header BAD_HDR (2'b00 or 2'b11);
//   FAULT = 2  bit FAULT_BIT of the FAULT_N-th data block (hdr == 2'd2) after reset is
//              flipped before scrambling.
// fault_out is high in the cycle the faulty block is on out_hdr / out_data: the ground truth
// the test bench compares the checker's findings with.
module repeater #(
    parameter int         FAULT     = 0,
    parameter int         FAULT_N   = 0,
    parameter bit [1:0]   BAD_HDR   = 2'b11,
    parameter int         FAULT_BIT = 21,
    parameter bit [57:0]  TX_SEED   = 58'h0f0f0f0_1234_5678
) (
    input  logic        clk,
    input  logic        rst,
    input  logic [1:0]  in_hdr,
    input  logic [63:0] in_data,
    output logic [1:0]  out_hdr,
    output logic [63:0] out_data,
    output logic        fault_out
);

    // clocks from a block on in_hdr/in_data to the same block on out_hdr/out_data
    localparam int LATENCY = 3;

    localparam bit [1:0] SYNC_DATA = 2'd2;

    // ------------------------------------------------------------ scrambler functions
    // Over the bit sequence {state (oldest first), line bits}: line[i] = d[i] ^ seq[i+19] ^ seq[i]
    // when scrambling (seq holds the scrambled bits), d[i] = line[i] ^ seq[i+19] ^ seq[i] when
    // descrambling (seq holds the received bits). state bit 0 is the oldest of the last 58 bits.
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

    // ------------------------------------------------------------ stage 0: input register
    logic        s0_valid;
    logic [1:0]  s0_hdr;
    logic [63:0] s0_data;

    always_ff @(posedge clk) begin
        s0_valid <= !rst;
        s0_hdr   <= in_hdr;
        s0_data  <= in_data;
    end

    // ------------------------------------------------------------ stage 1: descramble
    logic [57:0] rx_state;     // the last 58 received line bits, bit 57 the newest
    logic        s1_valid;
    logic [1:0]  s1_hdr;
    logic [63:0] s1_data;
    logic        s1_fault;
    int unsigned data_blocks;  // data blocks after reset, for FAULT = 2

    always_ff @(posedge clk) begin
        rx_state <= s0_data[63:6];
        s1_hdr   <= s0_hdr;
        s1_data  <= descramble(s0_data, rx_state);
        s1_fault <= 1'b0;
        if (rst) begin
            s1_valid    <= 1'b0;
            data_blocks <= 0;
        end else begin
            s1_valid <= s0_valid;
            if (s0_valid && s0_hdr == SYNC_DATA) begin
                data_blocks <= data_blocks + 1;
                if (FAULT == 2 && data_blocks == FAULT_N) begin
                    s1_data  <= descramble(s0_data, rx_state) ^ (64'd1 << FAULT_BIT);
                    s1_fault <= 1'b1;
                end
            end
        end
    end

    // ------------------------------------------------------------ stage 2: scramble, output
    logic [57:0] tx_state = TX_SEED;   // the last 58 sent bits; not reset
    logic [63:0] scrambled;
    int unsigned out_blocks;           // output blocks after reset, for FAULT = 1

    assign scrambled = scramble(s1_data, tx_state);

    always_ff @(posedge clk) begin
        if (rst || !s1_valid) begin
            out_hdr   <= 2'd0;
            out_data  <= 64'd0;
            fault_out <= 1'b0;
            if (rst) out_blocks <= 0;
        end else begin
            out_hdr   <= s1_hdr;
            out_data  <= scrambled;
            fault_out <= s1_fault;
            tx_state  <= scrambled[63:6];
            out_blocks <= out_blocks + 1;
            if (FAULT == 1 && out_blocks == FAULT_N) begin
                out_hdr   <= BAD_HDR;
                fault_out <= 1'b1;
            end
        end
    end

endmodule

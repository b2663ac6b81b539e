// bench.sv: the speed bench of examples/dpi-verilator (bench.sh). The repeater (rtl/repeater.sv)
// runs N clocks of back-to-back traffic, its input driven and its output watched in one of
// four ways (+mode=):
//   dut     the DUT alone: its input from an xorshift generator in SystemVerilog, no DPI call;
//   model   the baser TX model drives it (frames of 60..1514 octets from a pool, given while
//           fewer than 2 wait): the model's cost;
//   check   the TX model, and the live checker on the repeater's output, made with the TX
//           model's handle: the frames it is given are expected (no second hand-over);
//   expect  the same, each frame also handed to the checker with expect_frame() (the cost of
//           handing a frame over, as for frames a bench gives a DUT's frame interface);
//   serdes  the serdes source (66-bit units, offset 0: aligned) drives it, the checker
//           (made with its handle) watches: the serdes source in place of the TX model.
// +cycles=N (default 200000), +batch=N (the models' batch, default BASER_BATCH). Every mode
// folds the repeater's output into `sink` (an output), so none of its logic is optimised
// away. At the end: "TB: bench ..." and $finish; a divergence or a failed verdict fails.
module bench (
    input  logic        clk,
    output bit          failed,
    output logic [63:0] sink
);
    import baser_pkg::*;

    localparam int POOL = 64;

    logic        rst = 1'b1;
    logic [1:0]  in_hdr = 2'd0;
    logic [63:0] in_data = 64'd0;
    logic [1:0]  out_hdr;
    logic [63:0] out_data;
    logic        fault_out;

    repeater dut (
        .clk(clk), .rst(rst),
        .in_hdr(in_hdr), .in_data(in_data),
        .out_hdr(out_hdr), .out_data(out_data),
        .fault_out(fault_out)
    );

    string             mode = "check";
    longint            cycles = 200000;
    int                batch = BASER_BATCH;
    longint            cyc = 0;
    longint            sent = 0;
    longint            octets = 0;         // octets of the frames given
    int                in_flight = 0;      // frames given whose /T/ is not out yet
    longint unsigned   rng = 1;
    byte unsigned      pool[POOL][$];
    baser_tx_model      tx;
    baser_serdes_source src;
    baser_checker       chk;
    bit                 check_on;
    bit                 serdes_on;
    bit                 dut_only;
    bit                 expect_on;     // frames handed to the checker with expect_frame()

    function longint unsigned rnd();
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    endfunction

    initial begin
        int v;
        void'($value$plusargs("mode=%s", mode));
        if ($value$plusargs("cycles=%d", v)) cycles = longint'(v);
        if ($value$plusargs("batch=%d", v)) batch = v;
        for (int i = 0; i < POOL; i++) begin
            int len = 60 + int'(rnd() % 64'd1455);
            while (pool[i].size() < len) pool[i].push_back(8'(rnd()));
        end
        check_on = mode == "check" || mode == "expect" || mode == "serdes";
        serdes_on = mode == "serdes";
        dut_only = mode == "dut";
        expect_on = mode == "expect";
        if (mode != "dut" && mode != "model" && !check_on) begin
            $display("TB: FAIL: +mode=%s: expected dut, model, check, expect or serdes", mode);
            failed = 1;
            $finish;
        end
        if (serdes_on) begin
            src = new("offset=0 idle=100");
            src.batch = batch;
        end else if (mode != "dut") begin
            tx = new("idle=100");
            tx.batch = batch;
        end
        if (check_on) begin
            if (expect_on) chk = new("name=bench");
            else if (serdes_on) chk = new("name=bench", src.h);
            else chk = new("name=bench", tx.h);
            chk.batch = batch;
        end
        $display("TB: bench: mode %s, %0d clocks, batch %0d", mode, cycles, batch);
    end

    always @(posedge clk) begin
        bit [1:0]  h;
        bit [63:0] d;
        if (cyc == 7) rst <= 1'b0;
        if (dut_only) begin
            d = rnd();
            h = {d[0], ~d[0]};
            sink <= sink ^ out_data;
        end else begin
            // one branch per source (Verilator 5.006 may turn a pair of one-line if/else
            // arms into a ?:, which calls a method of both handles). Frames are given while
            // fewer than 2 wait: counted by the TX model's END events, or the serdes source's
            // pending() every 16 clocks (each call through a class handle costs).
            bit give = cyc < cycles - 600;
            int k = int'(sent % longint'(POOL));
            if (serdes_on) begin
                if (give && cyc % 16 == 0 && src.pending() < 2) begin
                    void'(src.send(pool[k]));
                    octets += longint'(pool[k].size());
                    sent++;
                end
                src.next(1'b0, h, d);
            end else begin
                if (give && in_flight < 2) begin
                    void'(tx.send(pool[k]));
                    if (expect_on) void'(chk.expect_frame(pool[k]));
                    octets += longint'(pool[k].size());
                    sent++;
                    in_flight++;
                end
                if ((tx.next(h, d) & BASER_EV_END) != 0) in_flight--;
            end
            if (check_on) void'(chk.push(out_hdr, out_data));
            else sink <= sink ^ out_data;
        end
        in_hdr <= h;
        in_data <= d;
        cyc++;
        if (cyc == cycles) begin
            longint divs = 0;
            int     fin = 0;
            if (check_on) begin
                divs = chk.divergences();
                fin = chk.finish("", "");
            end
            $display("TB: bench: %0d clocks, %0d frames (%0d octets) sent, checker: %0d divergence(s), finish %0d",
                     cyc, sent, octets, divs, fin);
            if (divs != 0 || fin != 0) begin
                $display("TB: FAIL: %s", chk.first_message());
                failed = 1;
            end
            $finish;
        end
    end
endmodule

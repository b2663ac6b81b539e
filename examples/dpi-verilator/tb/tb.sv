// tb.sv: the test bench of examples/dpi-verilator. The baser TX model (through baser_pkg and
// DPI-C) drives the receive side of rtl/repeater.sv one 66-bit block per clock; the baser
// live checker watches the repeater's transmit side every clock, with the same frames as its
// expectation; a baser RX model decodes the same stream for a second opinion on the frames.
// The repeater's fault_out pulse is the ground truth the checker's findings are held to.
//
// Parameters (set with verilator -G): FAULT, FAULT_N, BAD_HDR, FAULT_BIT: passed to the repeater.
// Plusargs:
//   +frames=N     frames to send (default 24), lengths 60..1514 octets, random content
//   +seed=N       seed of the frame contents (default 1)
//   +json=F +junit=F   the checker's reports (default none)
//   +name=S       the test name in the reports (default repeater_faultF)
//   +batch=N      the TX model's and the checker's batch (default BASER_BATCH = 64; 1: a DPI
//                 call a clock, and the push of the very clock that shows a divergence
//                 returns it)
//   +norx         no RX model
// It checks what FAULT says must happen and ends with "TB: PASS" ($finish) or
// "TB: FAIL ..." ($fatal, non-zero exit). The speed bench is tb/bench.sv.
//
// Clock and cycle numbering: the C++ main (sim_main.cpp) toggles clk. At every rising edge
// the bench samples the repeater's outputs (the block that was on them during the clock
// that ends) and pushes it to the checker, then takes the next block from the TX model for
// the repeater's input. "Cycle k" is the k-th sample, counted from 0 at the first rising
// edge; it is also the checker's block index (every sample is pushed, reset fill included),
// so block index k of the checker and cycle k of fault_out are the same clock.
module tb #(
    parameter int       FAULT   = 0,
    parameter int       FAULT_N = 0,
    parameter int       BAD_HDR = 3,       // 0 or 3
    parameter int       FAULT_BIT = 21
) (
    input  logic clk,
    // high when an expectation failed or a baser_pkg call failed: the exit status of sim_main
    output bit   failed
);
    import baser_pkg::*;

    localparam longint RESET_CYCLES = 8;

    bit tb_failed = 0;
    assign failed = tb_failed || baser_pkg::fatal_count != 0;

    // $fatal, and $finish for Verilator, where a raised +verilator+error+limit lets it go on
    function void fail(string msg);
        tb_failed = 1;
        $fatal(1, "%s", msg);
        $finish;
    endfunction

    function string onoff(bit b);
        return b ? "on" : "off";
    endfunction

    // ------------------------------------------------------------------ the DUT
    logic        rst = 1'b1;
    logic [1:0]  in_hdr = 2'd0;
    logic [63:0] in_data = 64'd0;
    logic [1:0]  out_hdr;
    logic [63:0] out_data;
    logic        fault_out;

    repeater #(.FAULT(FAULT), .FAULT_N(FAULT_N), .BAD_HDR(2'(BAD_HDR)), .FAULT_BIT(FAULT_BIT)) dut (
        .clk(clk), .rst(rst),
        .in_hdr(in_hdr), .in_data(in_data),
        .out_hdr(out_hdr), .out_data(out_data),
        .fault_out(fault_out)
    );

    // the repeater's LATENCY (rtl/repeater.sv), and the samples from a TX block t (driven
    // after edge t) to that block's sample on the output; the header check below proves it
    localparam int LATENCY = 3;
    localparam longint D = longint'(LATENCY) + 1;
    localparam int HISTN = 64;      // history ring of TX blocks, >= D
    localparam longint HIST = longint'(HISTN);

    // ------------------------------------------------------------------ settings
    int      nframes = 24;
    int      batch = BASER_BATCH;
    bit      rx_on = 1;
    string   json_path = "";
    string   junit_path = "";
    string   test_name;
    longint unsigned rng = 1;

    baser_tx_model tx;
    baser_checker  chk;
    baser_rx_model rx;

    // ------------------------------------------------------------------ frames
    // xorshift64: the same frames on every simulator
    function longint unsigned rnd();
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    endfunction

    // frame i: DA 02:00:00:00:00:01, SA 02:00:00:<i>, EtherType 0x88B5 (local experimental),
    // random payload; lengths (without FCS) 60..1514, the first six fixed at the edges
    function automatic void make_frame(int i, output byte unsigned f[$]);
        int len;
        int fixed_len[6] = '{60, 1514, 61, 64, 1513, 127};
        if (i < 6) len = fixed_len[i];
        else len = 60 + int'(rnd() % 64'd1455);
        f = {};
        f.push_back(8'h02); f.push_back(8'h00); f.push_back(8'h00);
        f.push_back(8'h00); f.push_back(8'h00); f.push_back(8'h01);
        f.push_back(8'h02); f.push_back(8'h00); f.push_back(8'h00);
        f.push_back(8'(i >> 16)); f.push_back(8'(i >> 8)); f.push_back(8'(i));
        f.push_back(8'h88); f.push_back(8'hb5);
        while (f.size() < len) begin
            longint unsigned r;
            r = rnd();
            for (int k = 0; k < 8 && f.size() < len; k++)
                f.push_back(r[8*k +: 8]);
        end
    endfunction

    // idle clocks (after the previous frame is fully sent) before frame i: a few gaps
    function int gap_before(int i);
        case (i)
            6:  return 20;
            12: return 3;
            18: return 57;
            default: return 0;
        endcase
    endfunction

    // ------------------------------------------------------------------ state
    longint  cyc = 0;              // samples so far (= the index of the next one)
    int      sent = 0;             // frames given to the TX model
    int      gap_left = -1;        // clocks of the current gap left; -1: not in a gap
    longint  exp_index[$];         // frame i -> the checker's expected index
    // TX side, per TX block (ring of HIST): its header, the frame it belongs to (-1 none)
    bit [1:0] tx_hdr_hist[HISTN];
    int       tx_frame_hist[HISTN];
    int       tx_starts = 0;       // /S/ seen so far = the frame id of the next /S/
    int       tx_cur = -1;         // frame being sent, -1 none
    longint   tx_term_cycle[$];    // frame i -> the TX block of its /T/
    // output side
    bit       out_started = 0;
    longint   hdr_mismatches = 0;
    longint   first_hdr_mismatch = -1;
    int       faults_seen = 0;
    longint   fault_cycle = -1;
    int       fault_frame = -1;    // the frame the faulty block belongs to, -1 none
    longint   live_first = -1;     // the first sample whose push found a divergence
    longint   live_total = 0;
    // RX model
    int       rx_frames = 0;
    int       rx_not_ok = 0;
    int       rx_fcs_errors = 0;
    string    rx_first_bad = "";
    bit       done = 0;
    longint   drain = 0;

    initial begin
        int v;
        string s;
        if ($value$plusargs("frames=%d", v)) nframes = v;
        if ($value$plusargs("seed=%d", v)) rng = longint'(v);
        if (rng == 0) rng = 1;
        if ($value$plusargs("batch=%d", v)) batch = v;
        if ($test$plusargs("norx")) rx_on = 0;
        void'($value$plusargs("json=%s", json_path));
        void'($value$plusargs("junit=%s", junit_path));
        test_name = $sformatf("repeater_fault%0d", FAULT);
        if ($value$plusargs("name=%s", s)) test_name = s;

        $display("TB: baser %s, FAULT=%0d FAULT_N=%0d BAD_HDR=%0d FAULT_BIT=%0d, %0d frames, batch %0d, rx model %s",
                 baser_version(), FAULT, FAULT_N, BAD_HDR, FAULT_BIT, nframes, batch, onoff(rx_on));

        // 100 idle blocks first: the repeater is in reset for the first 8, then a receiver
        // has the 64 good headers of block lock
        tx = new("idle=100");
        tx.batch = batch;
        chk = new($sformatf("name=%s", test_name));
        chk.batch = batch;
        if (rx_on) rx = new("input=blocks");
    end

    // ------------------------------------------------------------------ every clock
    always @(posedge clk) begin
        bit [1:0]  h;
        bit [63:0] d;
        int        ev;
        int        n;

        // ---- the output side: the block that was on the repeater's outputs this clock
        n = chk.push(out_hdr, out_data);        // a batch judged: its divergences
        if (n > 0) begin
            live_total += longint'(n);
            if (live_first < 0) live_first = cyc;
        end
        if (rx_on) begin
            byte unsigned fr[$];
            string        cls;
            longint       sb;
            void'(rx.push(out_hdr, out_data));
            while (rx.pop(fr, cls, sb)) begin
                if (cls != "ok") begin
                    rx_not_ok++;
                    if (rx_first_bad == "")
                        rx_first_bad = $sformatf("rx frame %0d (%0d octets, /S/ at block %0d): %s",
                                                 rx_frames, fr.size(), sb, cls);
                end
                if (cls == "fcs_error") rx_fcs_errors++;
                rx_frames++;
            end
        end
        if (fault_out) begin
            faults_seen++;
            if (fault_cycle < 0) begin
                fault_cycle = cyc;
                if (cyc >= D) fault_frame = tx_frame_hist[int'((cyc - D) % HIST)];
            end
        end
        // the repeater passes sync headers through: out = in delayed by D, fault excepted
        if (out_hdr != 2'd0 || out_data != 64'd0) out_started = 1;
        if (out_started && !fault_out && cyc >= D && out_hdr != tx_hdr_hist[int'((cyc - D) % HIST)]) begin
            hdr_mismatches++;
            if (first_hdr_mismatch < 0) first_hdr_mismatch = cyc;
        end

        // ---- the input side: frames to the TX model, its next block to the repeater
        if (cyc == RESET_CYCLES - 1) rst <= 1'b0;
        if (sent < nframes) begin
            if (gap_left < 0 && gap_before(sent) > 0) gap_left = gap_before(sent);
            if (gap_left > 0) begin
                if (tx.pending() == 0) gap_left--;   // the gap counts from the last /T/
            end else if (tx.pending() < 2) begin
                byte unsigned f[$];
                longint id;
                make_frame(sent, f);
                id = tx.send(f);
                if (id != longint'(sent)) fail($sformatf("TB: tx.send gave frame id %0d for frame %0d", id, sent));
                exp_index.push_back(chk.expect_frame(f));
                sent++;
                gap_left = -1;
            end
        end
        ev = tx.next(h, d);
        in_hdr <= h;
        in_data <= d;
        if ((ev & BASER_EV_START) != 0) begin
            tx_cur = tx_starts;
            tx_starts++;
        end
        tx_hdr_hist[int'(cyc % HIST)] = h;
        tx_frame_hist[int'(cyc % HIST)] = tx_cur;
        if ((ev & BASER_EV_END) != 0) begin
            tx_term_cycle.push_back(cyc);
            tx_cur = -1;
        end

        cyc++;

        // ---- the end
        if (!done) begin
            if (sent == nframes && tx.pending() == 0) begin
                drain++;
                if (drain == D + 8) begin   // the last frame's blocks are out of the repeater
                    done = 1;
                    end_functional();
                end
            end else if (cyc > 400000) begin
                done = 1;
                fail($sformatf("TB: FAIL: timeout, %0d of %0d frames sent", sent, nframes));
            end
        end
    end

    // ------------------------------------------------------------------ verdicts
    string failures[$];

    function void expect_that(bit cond, string what);
        if (!cond) failures.push_back(what);
    endfunction

    function bit contains(string s, string sub);
        if (sub.len() == 0) return 1;
        for (int i = 0; i + sub.len() <= s.len(); i++)
            if (s.substr(i, i + sub.len() - 1) == sub) return 1;
        return 0;
    endfunction

    // the JSON file with white space removed
    function string read_compact(string path);
        int fd;
        string text;
        int c;
        text = "";
        fd = $fopen(path, "r");
        if (fd == 0) return "";
        c = $fgetc(fd);
        while (c != -1) begin
            if (c != " " && c != "\n" && c != "\t" && c != "\r")
                text = {text, $sformatf("%c", 8'(c))};
            c = $fgetc(fd);
        end
        $fclose(fd);
        return text;
    endfunction

    function string verdict_of(string json);
        if (contains(json, "\"verdict\":\"pass\"")) return "pass";
        if (contains(json, "\"verdict\":\"fail\"")) return "fail";
        return "?";
    endfunction

    // a frame-index token in a message: "frame 7" followed by a non-digit
    function bit names_frame(string msg, int idx);
        string tok;
        tok = $sformatf("frame %0d", idx);
        for (int i = 0; i + tok.len() <= msg.len(); i++)
            if (msg.substr(i, i + tok.len() - 1) == tok
                && (i + tok.len() == msg.len()
                    || msg.getc(i + tok.len()) < 8'h30 || msg.getc(i + tok.len()) > 8'h39))
                return 1;
        return 0;
    endfunction

    function void end_functional();
        int     fin;
        int     rx_fin;
        longint divs, first_blk, found_at;
        string  first_msg, json;
        longint want_found;

        $display("TB: %0d frames sent in %0d clocks; repeater latency %0d clocks; fault_out high %0d time(s)%s",
                 sent, cyc, LATENCY, faults_seen,
                 fault_cycle >= 0 ? $sformatf(", first at cycle %0d (frame %0d)", fault_cycle, fault_frame) : "");
        expect_that(hdr_mismatches == 0,
                    $sformatf("%0d output headers differ from the input's delayed by %0d clocks (first at cycle %0d)",
                              hdr_mismatches, D, first_hdr_mismatch));

        if (rx_on) begin
            rx_fin = rx.finish("");
            $display("TB: rx model: %0d frames (%0d not ok, %0d fcs_error)%s; blocks %0d, invalid headers %0d, errored blocks %0d, lock losses %0d, hi_ber %0d, lock %0d, link fault %0d; finish %0d",
                     rx_frames, rx_not_ok, rx_fcs_errors,
                     rx_first_bad != "" ? {"; first: ", rx_first_bad} : "",
                     rx.counter(BASER_CNT_BLOCKS), rx.counter(BASER_CNT_INVALID_HEADERS),
                     rx.counter(BASER_CNT_ERRORED_BLOCKS), rx.counter(BASER_CNT_LOCK_LOSSES),
                     rx.counter(BASER_CNT_HI_BER), rx.counter(BASER_CNT_BLOCK_LOCK),
                     rx.counter(BASER_CNT_LINK_FAULT), rx_fin);
            expect_that(rx.counter(BASER_CNT_BLOCKS) == cyc,
                        $sformatf("rx model counted %0d blocks, %0d pushed", rx.counter(BASER_CNT_BLOCKS), cyc));
            expect_that(rx.counter(BASER_CNT_BLOCK_LOCK) == 1, "rx model: no block lock at the end");
            expect_that(rx.counter(BASER_CNT_LINK_FAULT) == 0, "rx model: link fault at the end");
        end

        // what is still queued is judged now; with batches, "found live" is where the model
        // says the first divergence was found (the push that returned it came up to a batch
        // later)
        live_total += longint'(chk.flush());
        if (batch != 1 && baser_check_divergences(chk.h) > 0)
            live_first = baser_check_divergence_found_at(chk.h, 0);
        divs = chk.divergences();
        first_blk = chk.first_block();
        found_at = chk.first_found_at();
        first_msg = chk.first_message();
        $display("TB: checker: %0d divergence(s) (%0d found live); first in DUT block %0d, found at block %0d (live: cycle %0d): \"%s\"",
                 divs, live_total, first_blk, found_at, live_first, first_msg);
        fin = chk.finish(json_path, junit_path);
        json = json_path != "" ? read_compact(json_path) : "";
        $display("TB: checker finish() = %0d%s", fin,
                 json_path != "" ? $sformatf(", %s: verdict %s", json_path,
                     verdict_of(json)) : "");
        expect_that(divs == live_total,
                    $sformatf("divergences() = %0d, but the pushes returned %0d in all", divs, live_total));

        case (FAULT)
            0: begin
                expect_that(faults_seen == 0, "fault_out was high with FAULT=0");
                expect_that(divs == 0, $sformatf("%0d divergence(s) on a correct DUT, the first: %s", divs, first_msg));
                expect_that(first_blk == -1 && found_at == -1 && first_msg == "",
                            $sformatf("first_block %0d / first_found_at %0d / first \"%s\" with no divergence",
                                      first_blk, found_at, first_msg));
                expect_that(fin == 0, $sformatf("finish() = %0d on a correct DUT (want 0)", fin));
                if (json_path != "")
                    expect_that(contains(json, "\"verdict\":\"pass\""),
                                $sformatf("%s does not say \"verdict\": \"pass\"", json_path));
                if (rx_on) begin
                    expect_that(rx_frames == nframes && rx_not_ok == 0,
                                $sformatf("rx model: %0d frames, %0d not ok (want %0d, all ok)%s",
                                          rx_frames, rx_not_ok, nframes, rx_first_bad != "" ? {": ", rx_first_bad} : ""));
                    expect_that(rx_fin == 0, $sformatf("rx model finish() = %0d (want 0: clean)", rx_fin));
                end
            end
            1: begin
                expect_that(faults_seen == 1, $sformatf("fault_out high %0d times (want 1)", faults_seen));
                expect_that(divs > 0, "no divergence found");
                expect_that(live_first == fault_cycle,
                            $sformatf("the first push that found a divergence was at cycle %0d, fault_out at cycle %0d",
                                      live_first, fault_cycle));
                expect_that(found_at == fault_cycle,
                            $sformatf("first_found_at = block %0d, fault_out at cycle %0d", found_at, fault_cycle));
                expect_that(first_blk == fault_cycle,
                            $sformatf("first_block = block %0d, fault_out at cycle %0d", first_blk, fault_cycle));
                expect_that(fin == 1, $sformatf("finish() = %0d (want 1: fail)", fin));
                if (json_path != "")
                    expect_that(contains(json, "\"verdict\":\"fail\""),
                                $sformatf("%s does not say \"verdict\": \"fail\"", json_path));
                if (rx_on)
                    expect_that(rx.counter(BASER_CNT_INVALID_HEADERS) == 1,
                                $sformatf("rx model counted %0d invalid sync headers (want 1)",
                                          rx.counter(BASER_CNT_INVALID_HEADERS)));
            end
            2: begin
                expect_that(faults_seen == 1, $sformatf("fault_out high %0d times (want 1)", faults_seen));
                expect_that(fault_frame >= 0, "the faulty data block belongs to no frame sent (TB bookkeeping)");
                expect_that(divs > 0, "no divergence found");
                expect_that(first_blk == fault_cycle,
                            $sformatf("first_block = block %0d, fault_out at cycle %0d", first_blk, fault_cycle));
                if (fault_frame >= 0) begin
                    // the frame is judged one block after its /T/ reaches the output
                    want_found = tx_term_cycle[fault_frame] + D + 1;
                    $display("TB: the faulty block is in frame %0d (expected index %0d), whose /T/ is on the output at cycle %0d",
                             fault_frame, exp_index[fault_frame], tx_term_cycle[fault_frame] + D);
                    expect_that(names_frame(first_msg, int'(exp_index[fault_frame])),
                                $sformatf("the first message does not name expected frame %0d: \"%s\"",
                                          exp_index[fault_frame], first_msg));
                    expect_that(found_at == want_found,
                                $sformatf("first_found_at = block %0d, want %0d (one block after the frame's /T/)",
                                          found_at, want_found));
                    expect_that(live_first == want_found,
                                $sformatf("the first push that found a divergence was at cycle %0d, want %0d",
                                          live_first, want_found));
                end
                expect_that(fin == 1, $sformatf("finish() = %0d (want 1: fail)", fin));
                if (json_path != "")
                    expect_that(contains(json, "\"verdict\":\"fail\""),
                                $sformatf("%s does not say \"verdict\": \"fail\"", json_path));
                if (rx_on)
                    expect_that(rx_frames == nframes && rx_fcs_errors == 1 && rx_not_ok == 1,
                                $sformatf("rx model: %0d frames, %0d fcs_error, %0d not ok (want %0d, 1, 1)",
                                          rx_frames, rx_fcs_errors, rx_not_ok, nframes));
            end
            default: failures.push_back($sformatf("FAULT=%0d is not a test of this bench", FAULT));
        endcase
        finish_tb();
    endfunction

    function void finish_tb();
        chk.free();
        if (rx_on) rx.free();
        tx.free();
        if (failures.size() == 0) begin
            $display("TB: PASS (FAULT=%0d)", FAULT);
            $finish;
        end else begin
            foreach (failures[i]) $display("TB: FAIL: %s", failures[i]);
            fail($sformatf("TB: FAIL (FAULT=%0d): %0d expectation(s) not met", FAULT, failures.size()));
        end
    endfunction

endmodule

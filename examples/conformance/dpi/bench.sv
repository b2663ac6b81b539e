// bench.sv: conf_bench replays the cases of a conformance suite (`baser gen --suite DIR`)
// into one DUT through the DPI-C package (capi/sv/baser_pkg.sv: baser_case_replay,
// baser_case_tx_replay, baser_case_pattern_replay) and has the model judge each (docs/conformance.md, "SystemVerilog").
// Its ports are the DUT's with verilog-ethernet's names (the example DUT's,
// ../rtl/conf_dut.v).
//
// Plusargs: +suite=DIR (default: suite; SUITE_ARG names another plusarg, for a second DUT
// of another suite in the same simulation), +report=DIR (per case DIR/NAME/CASE.json and .xml,
// JUnit; default: none), +case=CASE (one case; a bench with ONLY set ignores it). ONLY: one
// case (default "": every case of the suite, receive, transmit, then test-pattern). TX_OPTS:
// the DUT's transmitter for the transmit verdict ("ifg=12 dic=1", the default).
// PATTERN_OPTS: its test-pattern error output ("errors=per_clock", the default, or
// "errors=total").
// For each case: 8 clocks of reset, then
//   receive: one serdes clock of the case's line a clock (the DUT's bit slip request taken at
//     the next clock), the DUT's received frames, status levels, error pulses and counters
//     handed to the replay, until the line is out;
//   transmit: an idle line (tx-link-fault: its faults) to the DUT's receiver, the case's
//     frames to its AXI-stream input (after 200 clocks; each beat held until tready), its
//     serdes output handed to the replay, until every beat is taken and its line has been
//     quiet for 200 clocks;
//   test-pattern: the case's line to the DUT's serdes input and its cfg_rx_prbs31_enable
//     (rx-prbs31) or cfg_tx_prbs31_enable (tx-prbs31) as the replay says each clock, its
//     rx_error_count and serdes output handed to the replay, until the run is out;
// then the model's verdict: "TB: NAME: CASE pass" or "TB: NAME: CASE fail: <the first
// divergence>". `done` rises after the last case, with `failed` high if any failed.
`timescale 1ns / 1ps

module conf_bench #(
    parameter string NAME = "dut",
    parameter string ONLY = "",
    parameter string TX_OPTS = "",
    parameter string PATTERN_OPTS = "",
    parameter string SUITE_ARG = "suite"
) (
    input  logic        clk,
    output logic        rst,
    output logic [63:0] serdes_rx_data,
    output logic [1:0]  serdes_rx_hdr,
    input  logic        serdes_rx_bitslip,
    output logic        cfg_rx_prbs31_enable,
    output logic        cfg_tx_prbs31_enable,
    input  logic [6:0]  rx_error_count,
    input  logic [63:0] rx_axis_tdata,
    input  logic [7:0]  rx_axis_tkeep,
    input  logic        rx_axis_tvalid,
    input  logic        rx_axis_tlast,
    input  logic        rx_axis_tuser,
    input  logic        rx_error_bad_frame,
    input  logic        rx_error_bad_fcs,
    input  logic        rx_block_lock,
    input  logic        rx_high_ber,
    input  logic        rx_status,
    input  logic        rx_local_fault,
    input  logic        rx_remote_fault,
    input  logic [31:0] rx_errored_blocks,
    input  logic [31:0] rx_frames_good,
    input  logic [31:0] rx_frames_bad,
    input  logic [31:0] rx_fcs_errors,
    output logic [63:0] tx_axis_tdata,
    output logic [7:0]  tx_axis_tkeep,
    output logic        tx_axis_tvalid,
    input  logic        tx_axis_tready,
    output logic        tx_axis_tlast,
    output logic        tx_axis_tuser,
    input  logic [63:0] serdes_tx_data,
    input  logic [1:0]  serdes_tx_hdr,
    output logic        done,
    output logic        failed
);
    import baser_pkg::*;

    string suite = SUITE_ARG, report = "", only = ONLY;
    string cases[$];
    int kinds[$];  // 0 receive, 1 transmit, 2 test-pattern
    int ci = 0, resetting = 0, failures = 0;
    bit running = 1'b0, running_tx = 1'b0, running_pattern = 1'b0, pattern_given = 1'b0;
    baser_case_replay c;
    baser_case_tx_replay t;
    baser_case_pattern_replay p;
    string kind_names[3] = '{"rx", "tx", "pattern"};

    initial begin
        string n;
        rst = 1'b1;
        serdes_rx_data = '0;
        serdes_rx_hdr = 2'd1;
        cfg_rx_prbs31_enable = 1'b0;
        cfg_tx_prbs31_enable = 1'b0;
        tx_axis_tdata = '0;
        tx_axis_tkeep = '0;
        tx_axis_tvalid = 1'b0;
        tx_axis_tlast = 1'b0;
        tx_axis_tuser = 1'b0;
        done = 1'b0;
        failed = 1'b0;
        void'($value$plusargs({SUITE_ARG, "=%s"}, suite));
        void'($value$plusargs("report=%s", report));
        if (only == "") void'($value$plusargs("case=%s", only));
        for (int kind = 0; kind < 3; kind++)
            for (int k = 0; ; k++) begin
                n = baser_suite_case(suite, kind_names[kind], k);
                if (n == "") break;
                if (only != "" && n != only) continue;
                cases.push_back(n);
                kinds.push_back(kind);
            end
        if (cases.size() == 0)
            die($sformatf("no case%s in %s: %s", only == "" ? "" : {" ", only}, suite,
                          baser_last_error()));
    end

    // what the DUT says this clock
    task automatic observe();
        if (rx_axis_tvalid) c.beat(rx_axis_tdata, rx_axis_tkeep, rx_axis_tlast, rx_axis_tuser);
        c.level("block_lock", rx_block_lock);
        c.level("hi_ber", rx_high_ber);
        c.level("link_up", rx_status);
        c.level("local_fault", rx_local_fault);
        c.level("remote_fault", rx_remote_fault);
        c.pulse("bad_frame", rx_error_bad_frame);
        c.pulse("bad_fcs", rx_error_bad_fcs);
    endtask

    task automatic counters();
        c.counter("errored_blocks", longint'(rx_errored_blocks));
        c.counter("frames_good", longint'(rx_frames_good));
        c.counter("frames_bad", longint'(rx_frames_bad));
        c.counter("fcs_errors", longint'(rx_fcs_errors));
    endtask

    // a case's report file (".json", ".xml"), or "" without +report
    function automatic string report_file(string name, string ext);
        return report == "" ? "" : {report, "/", NAME, "/", name, ext};
    endfunction

    // the verdict's line: n divergences, the first given
    task automatic say(string name, longint n, string first);
        if (n == 0) $display("TB: %s: %s pass", NAME, name);
        else begin
            $display("TB: %s: %s fail: %s%s", NAME, name, first,
                     n > 1 ? $sformatf(" (+%0d more)", n - 1) : "");
            failures++;
        end
    endtask

    // the verdict of the case
    task automatic close();
        longint n;
        counters();
        n = c.finish(report_file(c.name, ".json"), report_file(c.name, ".xml"));
        say(c.name, n, c.divergence(0));
        c.free();
    endtask

    // the verdict of a transmit case
    task automatic close_tx();
        longint n;
        n = t.finish(report_file(t.name, ".json"), report_file(t.name, ".xml"));
        say(t.name, n, t.divergence(0));
        t.free();
    endtask

    // one clock of a transmit case: the DUT's line in, the beat and the receive line out
    task automatic clock_tx();
        bit [1:0] hdr;
        bit [63:0] data;
        bit [7:0] keep;
        bit last, user, valid;
        if (t.line(serdes_tx_hdr, serdes_tx_data)) begin
            valid = t.beat(tx_axis_tvalid && tx_axis_tready, data, keep, last, user);
            tx_axis_tvalid <= valid;
            tx_axis_tdata <= data;
            tx_axis_tkeep <= keep;
            tx_axis_tlast <= last;
            tx_axis_tuser <= user;
            t.idle(hdr, data);
            serdes_rx_hdr <= hdr;
            serdes_rx_data <= data;
        end else begin
            tx_axis_tvalid <= 1'b0;
            close_tx();
            running_tx = 1'b0;
        end
    endtask

    // the verdict of a test-pattern case
    task automatic close_pattern();
        longint n;
        n = p.finish(report_file(p.name, ".json"), report_file(p.name, ".xml"));
        say(p.name, n, p.divergence(0));
        p.free();
    endtask

    // one clock of a test-pattern case: what the DUT said after the edge in, the next
    // clock's line and enable out
    task automatic clock_pattern();
        bit [1:0] hdr;
        bit [63:0] data;
        bit en;
        if (pattern_given) begin
            p.errors(longint'(rx_error_count));
            p.line(serdes_tx_hdr, serdes_tx_data);
        end
        if (p.next(hdr, data, en)) begin
            serdes_rx_hdr <= hdr;
            serdes_rx_data <= data;
            if (p.name == "rx-prbs31") cfg_rx_prbs31_enable <= en;
            else cfg_tx_prbs31_enable <= en;
            pattern_given = 1'b1;
        end else begin
            cfg_rx_prbs31_enable <= 1'b0;
            cfg_tx_prbs31_enable <= 1'b0;
            close_pattern();
            running_pattern = 1'b0;
        end
    endtask

    // (state in `running`, `running_tx`, `running_pattern` and `resetting`: Verilator 5.006 misreads `c == null`
    // here)
    always @(posedge clk) begin
        bit [1:0] hdr;
        bit [63:0] data;
        if (running_tx) clock_tx();
        else if (running_pattern) clock_pattern();
        else if (running) begin
            observe();
            if (c.next(serdes_rx_bitslip, hdr, data)) begin
                serdes_rx_hdr <= hdr;
                serdes_rx_data <= data;
            end else begin
                close();
                running = 1'b0;
            end
        end else if (resetting > 0) begin
            resetting = resetting - 1;
            if (resetting == 0) begin
                rst <= 1'b0;
                if (kinds[ci] == 1) begin
                    t = new(suite, cases[ci], TX_OPTS);
                    running_tx = 1'b1;
                end else if (kinds[ci] == 2) begin
                    p = new(suite, cases[ci], PATTERN_OPTS);
                    pattern_given = 1'b0;
                    running_pattern = 1'b1;
                end else begin
                    c = new(suite, cases[ci], "pulses=bad_frame+bad_fcs");
                    counters();
                    running = 1'b1;
                end
                ci++;
            end
        end else if (ci == cases.size()) begin
            if (!done)
                $display("TB: %s: %0d of %0d cases pass", NAME, cases.size() - failures,
                         cases.size());
            done <= 1'b1;
            failed <= failures != 0;
        end else begin
            rst <= 1'b1;
            resetting = 8;
        end
    end
endmodule

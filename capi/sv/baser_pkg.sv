// baser_pkg.sv: the baser golden model (IEEE 802.3 Clause 49 PCS + 10G MAC) in a
// SystemVerilog test bench, live, through DPI-C. Link the simulation with libbaser
// (libbaser.so, or libbaser.a with -lpthread -ldl -lm); the C declarations are in
// capi/include/baser.h.
//
// Three models, each a handle (chandle) made by *_new(options) and released by *_free:
//   baser_tx_model  frames in, one 66-bit block (or one 32/64-bit serial word) per clock out:
//                   MAC (preamble, pad, FCS, IFG with deficit idle count) + PCS (64b/66b,
//                   scrambler). Drives a DUT's receive side.
//   baser_rx_model  one block (serial word, XGMII transfer) per clock in, frames out with their
//                   MAC class, plus the PCS counters.
//   baser_checker   the expected frames in, the DUT's stream in every clock; reports each
//                   divergence with $error in the cycle it is found, and at the end writes the
//                   same JSON / JUnit reports as `baser check --frames`.
//
// Bit order (docs/formats.md): bit 0 is first on the wire. A block is hdr[1:0] (the sync
// header as an integer whose bit 0 is first on the wire: 2'd2 = data block, IEEE "01";
// 2'd1 = control block, IEEE "10"; 0 and 3 are invalid) and data[63:0] (bit 0 first); the
// same as encoded_tx_hdr / encoded_tx_data of common RTL. A frame is given as its octets from
// the destination address on, without FCS (the model appends it) unless fcs_included.
//
// Return codes of the C functions: 0 ok, -1 null handle or pointer, -2 bad argument or
// option, -3 call not valid now (e.g. after finish), -4 a report file could not be written,
// -5 internal error. baser_last_error() is the message of the last failed call on this thread.
//
// Plain SystemVerilog-2012: classes, queues, DPI-C with chandle/string/int/longint/byte.
// Tested with Verilator 5.006; nothing in it is specific to one simulator.
package baser_pkg;

    // ------------------------------------------------------------------ DPI-C imports
    // C type mapping: chandle = handle pointer, string = const char *, int = int32_t,
    // longint = int64_t, byte unsigned = uint8_t, longint unsigned = uint64_t,
    // output byte unsigned = uint8_t *, output longint unsigned = uint64_t *.
    // The (pointer, length) calls baser_tx_send, baser_check_expect and baser_rx_frame_copy are
    // C only: from SV a frame is built eight octets a call (baser_tx_bytes,
    // baser_check_expect_bytes; or octet by octet: baser_tx_byte, baser_check_expect_byte)
    // and then sent, and read octet by octet (baser_rx_frame_byte).

    import "DPI-C" function string baser_version();
    import "DPI-C" function string baser_last_error();

    // TX model
    import "DPI-C" function chandle baser_tx_new(input string options);
    import "DPI-C" function void    baser_tx_free(input chandle tx);
    import "DPI-C" function int     baser_tx_byte(input chandle tx, input byte unsigned octet);
    import "DPI-C" function int     baser_tx_bytes(input chandle tx, input longint unsigned octets,
                                                   input int n);
    import "DPI-C" function longint baser_tx_send_built(input chandle tx, input int fcs_included);
    import "DPI-C" function int     baser_tx_next_block(input chandle tx,
                                                        output byte unsigned header,
                                                        output longint unsigned payload);
    import "DPI-C" function int     baser_tx_next_word(input chandle tx, input int width,
                                                       output longint unsigned word);
    import "DPI-C" function longint baser_tx_blocks(input chandle tx);
    import "DPI-C" function longint baser_tx_pending(input chandle tx);

    // RX model
    import "DPI-C" function chandle baser_rx_new(input string options);
    import "DPI-C" function void    baser_rx_free(input chandle rx);
    import "DPI-C" function int     baser_rx_push_block(input chandle rx, input byte unsigned header,
                                                        input longint unsigned payload);
    import "DPI-C" function int     baser_rx_push_word(input chandle rx, input int width,
                                                       input longint unsigned word);
    import "DPI-C" function int     baser_rx_push_xgmii(input chandle rx, input longint unsigned data,
                                                        input byte unsigned ctrl);
    import "DPI-C" function int     baser_rx_frame_len(input chandle rx);
    import "DPI-C" function int     baser_rx_frame_byte(input chandle rx, input int i);
    import "DPI-C" function string  baser_rx_frame_class(input chandle rx);
    import "DPI-C" function longint baser_rx_frame_block(input chandle rx);
    import "DPI-C" function int     baser_rx_frame_pop(input chandle rx);
    import "DPI-C" function longint baser_rx_counter(input chandle rx, input int which);
    import "DPI-C" function int     baser_rx_finish(input chandle rx, input string json_path);

    // Live checker
    import "DPI-C" function chandle baser_check_new(input string options);
    import "DPI-C" function void    baser_check_free(input chandle c);
    import "DPI-C" function int     baser_check_expect_byte(input chandle c, input byte unsigned octet);
    import "DPI-C" function int     baser_check_expect_bytes(input chandle c, input longint unsigned octets,
                                                             input int n);
    import "DPI-C" function longint baser_check_expect_built(input chandle c, input int fcs_included);
    import "DPI-C" function int     baser_check_push_block(input chandle c, input byte unsigned header,
                                                           input longint unsigned payload);
    import "DPI-C" function int     baser_check_push_word(input chandle c, input int width,
                                                          input longint unsigned word);
    import "DPI-C" function int     baser_check_push_xgmii(input chandle c, input longint unsigned data,
                                                           input byte unsigned ctrl);
    import "DPI-C" function longint baser_check_divergences(input chandle c);
    import "DPI-C" function longint baser_check_first_block(input chandle c);
    import "DPI-C" function longint baser_check_first_found_at(input chandle c);
    import "DPI-C" function string  baser_check_first(input chandle c);
    import "DPI-C" function string  baser_check_last(input chandle c);
    import "DPI-C" function int     baser_check_finish(input chandle c, input string json_path,
                                                       input string junit_path);

    // Return codes (the BASER_OK / BASER_E_* of baser.h)
    localparam int BASER_OK         = 0;
    localparam int BASER_E_NULL     = -1;  // a null handle or pointer
    localparam int BASER_E_ARG      = -2;  // a bad argument or option
    localparam int BASER_E_STATE    = -3;  // not valid now (nothing waiting, after finish, ...)
    localparam int BASER_E_IO       = -4;  // a report file could not be written
    localparam int BASER_E_INTERNAL = -5;  // a bug in the model (a caught panic)

    // Event bits of baser_tx_next_block's result (baser_tx_model::next)
    localparam int BASER_EV_START = 1;  // a frame's /S/ is in this block
    localparam int BASER_EV_SFD   = 2;  // its SFD
    localparam int BASER_EV_END   = 4;  // its /T/: the frame is fully sent

    // Which counter baser_rx_counter (baser_rx_model::counter) reads
    localparam int BASER_CNT_BLOCKS          = 0;  // blocks (transfers) received
    localparam int BASER_CNT_FRAMES          = 1;  // frames received
    localparam int BASER_CNT_INVALID_HEADERS = 2;  // invalid sync headers while locked
    localparam int BASER_CNT_ERRORED_BLOCKS  = 3;  // blocks into RX_E while the link was up
    localparam int BASER_CNT_LOCK_LOSSES     = 4;  // block lock losses
    localparam int BASER_CNT_HI_BER          = 5;  // hi_ber episodes
    localparam int BASER_CNT_BLOCK_LOCK      = 6;  // block lock now (0/1)
    localparam int BASER_CNT_LINK_FAULT      = 7;  // 0 ok, 1 local fault, 2 remote fault, 3 link interruption

    // ------------------------------------------------------------------ errors
    // A call the model refused (a bad option, a call out of order) ends the simulation with
    // $fatal. Verilator 5 counts $fatal like $error against +verilator+error+limit (which a
    // bench raises so that the checker's $error reports do not stop it), so die() also calls
    // $finish, and counts in fatal_count, which a bench can turn into its exit status.
    int unsigned fatal_count = 0;

    function automatic void die(string msg);
        fatal_count++;
        if (fatal_count == 1) $fatal(1, "%s", msg);
        $finish;
    endfunction

    // Hands a frame to a TX model (to_check = 0) or a checker (1) eight octets a DPI call,
    // octet 0 of each call in bits 7:0. Returns the first error code, or 0.
    function automatic int pack(byte unsigned frame[$], chandle h, bit to_check);
        int n = frame.size();
        for (int i = 0; i < n; i += 8) begin
            longint unsigned w = 0;
            int k = (n - i < 8) ? n - i : 8;
            int r;
            for (int j = 0; j < k; j++)
                w[8*j +: 8] = frame[i + j];
            // (if/else, not ?: : Verilator 5.006 calls both imports of a ?: of DPI calls)
            if (to_check) r = baser_check_expect_bytes(h, w, k);
            else r = baser_tx_bytes(h, w, k);
            if (r < 0) return r;
        end
        return 0;
    endfunction

    // ------------------------------------------------------------------ TX model
    class baser_tx_model;
        chandle h;
        string  options;

        // options: space-separated key=value: profile=ieee|verilog-ethernet ifg=12
        // dic=on|off|strict|reset-on-idle pad=1 seed=0x<58-bit scrambler state> idle=128
        // (idle blocks before the first frame) scrambled=1"
        function new(string opts = "");
            options = opts;
            h = baser_tx_new(options);
            if (h == null)
                die($sformatf("baser_tx_new(\"%s\"): %s", options, baser_last_error()));
        endfunction

        // Queue one frame (DA..payload; no FCS unless fcs_included). Returns its frame id
        // (0, 1, 2, ... in the order given).
        function longint send(byte unsigned frame[$], int fcs_included = 0);
            longint id;
            if (pack(frame, h, 0) < 0)
                die($sformatf("baser_tx_bytes: %s", baser_last_error()));
            id = baser_tx_send_built(h, fcs_included);
            if (id < 0)
                die($sformatf("baser_tx_send_built: %s", baser_last_error()));
            return id;
        endfunction

        // One clock: the next 66-bit block. Returns the events of this block
        // (BASER_EV_START | BASER_EV_SFD | BASER_EV_END).
        function int next(output bit [1:0] hdr, output bit [63:0] data);
            byte unsigned     h8;
            longint unsigned  p;
            int               ev;
            ev = baser_tx_next_block(h, h8, p);
            if (ev < 0)
                die($sformatf("baser_tx_next_block: %s", baser_last_error()));
            hdr = h8[1:0];
            data = p;
            return ev;
        endfunction

        // Serial alternative to next(): the next width (32 or 64) line bits, bit 0 first.
        // Do not mix with next() on one model.
        function bit [63:0] next_word(int width = 64);
            longint unsigned w;
            if (baser_tx_next_word(h, width, w) < 0)
                die($sformatf("baser_tx_next_word: %s", baser_last_error()));
            return w;
        endfunction

        function longint blocks();  return baser_tx_blocks(h);  endfunction
        function longint pending(); return baser_tx_pending(h); endfunction

        function void free();
            if (h != null) baser_tx_free(h);
            h = null;
        endfunction
    endclass

    // ------------------------------------------------------------------ RX model
    class baser_rx_model;
        chandle h;
        string  options;

        // options: input=blocks|serial|xgmii profile=... max_frame_length=1518 scrambled=1
        // descrambler_state=0x... strict_start=0 max_events=20
        function new(string opts = "");
            options = opts;
            h = baser_rx_new(options);
            if (h == null)
                die($sformatf("baser_rx_new(\"%s\"): %s", options, baser_last_error()));
        endfunction

        // One clock of a block stream. Returns the number of received frames waiting.
        function int push(bit [1:0] hdr, bit [63:0] data);
            int n;
            n = baser_rx_push_block(h, {6'd0, hdr}, data);
            if (n < 0)
                die($sformatf("baser_rx_push_block: %s", baser_last_error()));
            return n;
        endfunction

        function int push_word(int width, bit [63:0] word);
            int n;
            n = baser_rx_push_word(h, width, word);
            if (n < 0)
                die($sformatf("baser_rx_push_word: %s", baser_last_error()));
            return n;
        endfunction

        function int push_xgmii(bit [63:0] data, bit [7:0] ctrl);
            int n;
            n = baser_rx_push_xgmii(h, data, ctrl);
            if (n < 0)
                die($sformatf("baser_rx_push_xgmii: %s", baser_last_error()));
            return n;
        endfunction

        // The oldest waiting frame, removed from the queue: its octets (DA..FCS), MAC class
        // ("ok", "fcs_error", ...) and the block index of its /S/. Returns 0 when none waits.
        function bit pop(output byte unsigned frame[$], output string cls, output longint start_block);
            int len;
            frame = {};
            cls = "";
            start_block = -1;
            len = baser_rx_frame_len(h);
            if (len < 0) return 0;
            for (int i = 0; i < len; i++) begin
                int b;
                b = baser_rx_frame_byte(h, i);
                if (b < 0)
                    die($sformatf("baser_rx_frame_byte: %s", baser_last_error()));
                frame.push_back(b[7:0]);
            end
            cls = baser_rx_frame_class(h);
            start_block = baser_rx_frame_block(h);
            if (baser_rx_frame_pop(h) < 0)
                die($sformatf("baser_rx_frame_pop: %s", baser_last_error()));
            return 1;
        endfunction

        // BASER_CNT_BLOCKS .. BASER_CNT_LINK_FAULT
        function longint counter(int which); return baser_rx_counter(h, which); endfunction

        // 0 clean, 1 not clean. json: "" for no file.
        function int finish(string json = "");
            int r;
            r = baser_rx_finish(h, json);
            if (r < 0)
                die($sformatf("baser_rx_finish: %s", baser_last_error()));
            return r;
        endfunction

        function void free();
            if (h != null) baser_rx_free(h);
            h = null;
        endfunction
    endclass

    // ------------------------------------------------------------------ live checker
    class baser_checker;
        chandle h;
        string  options;
        // each divergence found is reported with $error, at most max_reports times
        // (the count and the first one stay available through divergences() and first_*())
        int     max_reports = 20;
        int     reported = 0;
        longint pushed = 0;       // blocks pushed so far (the block index of the next push)

        // options: as baser_rx_model's, plus name=<the expected frames' name in the reports>
        // and dut=<the DUT stream's name>
        function new(string opts = "");
            options = opts;
            h = baser_check_new(options);
            if (h == null)
                die($sformatf("baser_check_new(\"%s\"): %s", options, baser_last_error()));
        endfunction

        // One expected frame (DA..payload; no FCS unless fcs_included), in the order the DUT
        // must send them. Give it before the DUT sends it. Returns its expected index.
        function longint expect_frame(byte unsigned frame[$], int fcs_included = 0);
            longint idx;
            if (pack(frame, h, 1) < 0)
                die($sformatf("baser_check_expect_bytes: %s", baser_last_error()));
            idx = baser_check_expect_built(h, fcs_included);
            if (idx < 0)
                die($sformatf("baser_check_expect_built: %s", baser_last_error()));
            return idx;
        endfunction

        // Reports the divergences a push found (n of them, the latest one's message).
        protected function void report(int n, longint blk);
            if (n <= 0 || reported >= max_reports) return;
            reported++;
            if (n == 1)
                $error("baser_checker: divergence at DUT block %0d (time %0t): %s",
                       blk, $time, baser_check_last(h));
            else if (baser_check_divergences(h) == longint'(n))   // the first ones of the run
                $error("baser_checker: %0d divergences at DUT block %0d (time %0t), the first: %s; the latest: %s",
                       n, blk, $time, baser_check_first(h), baser_check_last(h));
            else
                $error("baser_checker: %0d divergences at DUT block %0d (time %0t), the latest: %s",
                       n, blk, $time, baser_check_last(h));
            if (reported == max_reports)
                $display("baser_checker: no more divergences reported (max_reports = %0d)", max_reports);
        endfunction

        // One clock of the DUT's block stream. Returns the number of new divergences.
        function int push(bit [1:0] hdr, bit [63:0] data);
            int n;
            n = baser_check_push_block(h, {6'd0, hdr}, data);
            if (n < 0)
                die($sformatf("baser_check_push_block: %s", baser_last_error()));
            report(n, pushed);
            pushed++;
            return n;
        endfunction

        // One clock of a serial stream (width 32 or 64 line bits, bit 0 first).
        function int push_word(int width, bit [63:0] word);
            int n;
            n = baser_check_push_word(h, width, word);
            if (n < 0)
                die($sformatf("baser_check_push_word: %s", baser_last_error()));
            report(n, pushed);
            pushed++;
            return n;
        endfunction

        // One clock of an XGMII stream (lane i = data[8i+7:8i], ctrl[i]).
        function int push_xgmii(bit [63:0] data, bit [7:0] ctrl);
            int n;
            n = baser_check_push_xgmii(h, data, ctrl);
            if (n < 0)
                die($sformatf("baser_check_push_xgmii: %s", baser_last_error()));
            report(n, pushed);
            pushed++;
            return n;
        endfunction

        function longint divergences();    return baser_check_divergences(h);    endfunction
        // block index (0 = the first block pushed) of the first divergence in the DUT stream; -1 none
        function longint first_block();    return baser_check_first_block(h);    endfunction
        // block index at which it was found (a frame is judged one block after its /T/)
        function longint first_found_at(); return baser_check_first_found_at(h); endfunction
        function string  first_message();  return baser_check_first(h);          endfunction
        function string  last_message();   return baser_check_last(h);           endfunction

        // The full judgement over the whole run (missing frames too); writes the JSON and JUnit
        // reports of `baser check --frames` ("" for none). Returns 0 pass, 1 fail.
        function int finish(string json = "", string junit = "");
            int r;
            r = baser_check_finish(h, json, junit);
            if (r < 0)
                die($sformatf("baser_check_finish: %s", baser_last_error()));
            return r;
        endfunction

        function void free();
            if (h != null) baser_check_free(h);
            h = null;
        endfunction
    endclass

endpackage

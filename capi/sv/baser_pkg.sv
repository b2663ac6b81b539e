// baser_pkg.sv: the baser golden model (IEEE 802.3 Clause 49 PCS + 10G MAC) in a
// SystemVerilog test bench, live, through DPI-C. Link the simulation with libbaser
// (libbaser.so, or libbaser.a with -lpthread -ldl -lm); the C declarations are in
// capi/include/baser.h; docs/dpi.md is the guide.
//
// The models, each a handle (chandle) made by *_new(options) and released by *_free:
//   baser_tx_model       frames in, one 66-bit block (or one 32/64-bit serdes word) per clock
//                        out: MAC (preamble, pad, FCS, IFG with deficit idle count) + PCS
//                        (64b/66b, scrambler). Drives a DUT's receive side at known block
//                        boundaries.
//   baser_serdes_source  the same line through a serdes, for a DUT whose receiver finds block
//                        lock by bit slip: 66-bit units (or a 64b/66b gearbox's 64/32-bit words)
//                        from any bit offset, moved one bit by each slip the DUT asks for.
//   baser_rx_model       one block (serial word, XGMII transfer) per clock in, frames out with
//                        their MAC class, plus the PCS counters.
//   baser_checker        the expected frames in, the DUT's line every clock; reports each
//                        divergence with $error (where it was found, where it is, both with
//                        their times), and at the end writes the JSON / JUnit reports of
//                        `baser check --frames`.
//   baser_frame_monitor  the same judge for the frames a DUT delivers on a frame interface (an
//                        AXI stream: octets and an error flag), against the frames a source
//                        sent it.
//   baser_case_replay    a receive case of a conformance suite (`baser gen --suite DIR`) fed
//                        to a DUT one serdes clock at a time; its frames, status levels, error
//                        pulses and counters judged against the case's expected outcome
//                        (docs/conformance.md, "SystemVerilog").
//   baser_case_pattern_replay a test-pattern case of a suite (rx-prbs31, tx-prbs31): the
//                        DUT's test-pattern enable driven, its error counter or line judged
//   baser_case_tx_replay a transmit case of a suite: its frames fed to the DUT's AXI-stream
//                        input as it takes them, its serdes output judged bit exact, frame by
//                        frame, and by the deficit idle count (the same verdict as cocotb's).
//
// Cost: the models hand out and take the line in batches of BASER_BATCH clocks (one DPI call
// each); the checkers judge a batch when it is full, when asked (flush(), the query
// functions) and at finish(). A divergence is reported up to a batch late in simulation time,
// with the times of the clocks it concerns. Set `batch = 1` for per-clock calls.
//
// Bit order (docs/formats.md): bit 0 is first on the wire. A block is hdr[1:0] (the sync
// header as an integer whose bit 0 is first on the wire: 2'd2 = data block, IEEE "01";
// 2'd1 = control block, IEEE "10"; 0 and 3 are invalid) and data[63:0] (bit 0 first); the
// same as encoded_tx_hdr / encoded_tx_data of common RTL. A frame is given as its octets from
// the destination address on, without FCS (the model appends it) unless fcs_included; at most
// 16380 octets without FCS (BASER_MAX_FRAME = 16384 with it).
//
// Return codes of the C functions: 0 ok, -1 null handle or pointer, -2 bad argument or
// option, -3 call not valid now (e.g. after finish), -4 a report file could not be written,
// -5 internal error. baser_last_error() is the message of the last failed call on this thread.
//
// Plain SystemVerilog-2012: classes, queues, DPI-C with chandle/string/int/longint/byte and
// fixed-size unpacked arrays. Tested with Verilator 5.006; nothing in it is specific to one
// simulator.
package baser_pkg;

    // Clocks a batch call takes (the fixed-size arrays below): BASER_BATCH of baser.h.
    localparam int BASER_BATCH = 64;
    // The longest frame, FCS included (the MAC's buffer).
    localparam int BASER_MAX_FRAME = 16384;

    // ------------------------------------------------------------------ DPI-C imports
    // C type mapping: chandle = handle pointer, string = const char *, int = int32_t,
    // longint = int64_t, byte unsigned = uint8_t, longint unsigned = uint64_t,
    // output byte unsigned = uint8_t *, output longint unsigned = uint64_t *, a fixed-size
    // array [BASER_BATCH] = a pointer to its first element.
    // The (pointer, length) calls baser_tx_send, baser_check_expect, baser_check_push_frame and
    // baser_rx_frame_copy are C only: from SV a frame is built eight octets a call
    // (baser_tx_bytes, baser_check_expect_bytes) and then sent, and read octet by octet
    // (baser_rx_frame_byte).

    import "DPI-C" function string baser_version();
    import "DPI-C" function string baser_last_error();

    // TX model
    import "DPI-C" function chandle baser_tx_new(input string options);
    import "DPI-C" function void    baser_tx_free(input chandle tx);
    import "DPI-C" function int     baser_tx_byte(input chandle tx, input byte unsigned octet);
    import "DPI-C" function int     baser_tx_bytes(input chandle tx, input longint unsigned octets,
                                                   input int n);
    import "DPI-C" function int     baser_tx_octets(input chandle tx,
                                                    input longint unsigned words[BASER_BATCH],
                                                    input int n);
    import "DPI-C" function longint baser_tx_send_built(input chandle tx, input int fcs_included);
    import "DPI-C" function int     baser_tx_next_block(input chandle tx,
                                                        output byte unsigned header,
                                                        output longint unsigned payload);
    import "DPI-C" function int     baser_tx_next_blocks(input chandle tx,
                                                         output byte unsigned header[BASER_BATCH],
                                                         output longint unsigned payload[BASER_BATCH],
                                                         output byte unsigned events[BASER_BATCH],
                                                         input int n);
    import "DPI-C" function int     baser_tx_next_word(input chandle tx, input int width,
                                                       output longint unsigned word);
    import "DPI-C" function int     baser_tx_serdes(input chandle tx, input int used, input int slip,
                                                    output byte unsigned header[BASER_BATCH],
                                                    output longint unsigned data[BASER_BATCH],
                                                    output byte unsigned flags[BASER_BATCH],
                                                    input int n);
    import "DPI-C" function int     baser_tx_keep_sent(input chandle tx);
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

    // Live checker (and frames checker: input=frames)
    import "DPI-C" function chandle baser_check_new(input string options);
    import "DPI-C" function void    baser_check_free(input chandle c);
    import "DPI-C" function int     baser_check_expect_byte(input chandle c, input byte unsigned octet);
    import "DPI-C" function int     baser_check_expect_bytes(input chandle c, input longint unsigned octets,
                                                             input int n);
    import "DPI-C" function int     baser_check_expect_octets(input chandle c,
                                                              input longint unsigned words[BASER_BATCH],
                                                              input int n);
    import "DPI-C" function longint baser_check_expect_built(input chandle c, input int fcs_included);
    import "DPI-C" function longint baser_check_expect_sent(input chandle c, input chandle tx);
    import "DPI-C" function int     baser_check_push_block(input chandle c, input byte unsigned header,
                                                           input longint unsigned payload);
    import "DPI-C" function int     baser_check_push_blocks(input chandle c,
                                                            input byte unsigned header[BASER_BATCH],
                                                            input longint unsigned payload[BASER_BATCH],
                                                            input int n);
    import "DPI-C" function int     baser_check_push_word(input chandle c, input int width,
                                                          input longint unsigned word);
    import "DPI-C" function int     baser_check_push_words(input chandle c, input int width,
                                                           input longint unsigned words[BASER_BATCH],
                                                           input int n);
    import "DPI-C" function int     baser_check_push_xgmii(input chandle c, input longint unsigned data,
                                                           input byte unsigned ctrl);
    import "DPI-C" function int     baser_check_push_transfers(input chandle c,
                                                               input longint unsigned data[BASER_BATCH],
                                                               input byte unsigned ctrl[BASER_BATCH],
                                                               input int n);
    import "DPI-C" function int     baser_check_push_beat(input chandle c, input longint unsigned data,
                                                          input byte unsigned keep, input int flags);
    import "DPI-C" function int     baser_check_push_beats(input chandle c,
                                                           input longint unsigned data[BASER_BATCH],
                                                           input byte unsigned keep[BASER_BATCH],
                                                           input byte unsigned flags[BASER_BATCH],
                                                           input int n);
    import "DPI-C" function int     baser_check_push_built(input chandle c, input int error);
    import "DPI-C" function longint baser_check_divergences(input chandle c);
    import "DPI-C" function longint baser_check_counter(input chandle c, input int which);
    import "DPI-C" function longint baser_check_divergence_block(input chandle c, input longint k);
    import "DPI-C" function longint baser_check_divergence_found_at(input chandle c, input longint k);
    import "DPI-C" function string  baser_check_divergence(input chandle c, input longint k);
    import "DPI-C" function longint baser_check_first_block(input chandle c);
    import "DPI-C" function longint baser_check_first_found_at(input chandle c);
    import "DPI-C" function string  baser_check_first(input chandle c);
    import "DPI-C" function string  baser_check_last(input chandle c);
    import "DPI-C" function int     baser_check_finish(input chandle c, input string json_path,
                                                       input string junit_path);

    // conformance: a receive case of a suite (`baser gen --suite DIR`) replayed and judged
    // (baser_case_replay; docs/conformance.md, "SystemVerilog")
    import "DPI-C" function chandle baser_case_open(input string suite_dir, input string name,
                                                    input string options);
    import "DPI-C" function void    baser_case_free(input chandle c);
    import "DPI-C" function int     baser_case_next(input chandle c, input int slip,
                                                    output byte unsigned header,
                                                    output longint unsigned data);
    import "DPI-C" function int     baser_case_beat(input chandle c, input longint unsigned data,
                                                    input byte unsigned keep, input int last,
                                                    input int bad);
    import "DPI-C" function int     baser_case_level(input chandle c, input string role,
                                                     input int value);
    import "DPI-C" function int     baser_case_pulse(input chandle c, input string role,
                                                     input int high);
    import "DPI-C" function int     baser_case_counter(input chandle c, input string role,
                                                       input longint value);
    import "DPI-C" function longint baser_case_finish(input chandle c, input string json_path,
                                                      input string junit_path);
    import "DPI-C" function string  baser_case_divergence(input chandle c, input longint k);
    import "DPI-C" function string  baser_suite_case(input string suite_dir, input string kind,
                                                     input int k);
    // a transmit case (baser_case_tx_replay)
    import "DPI-C" function chandle baser_case_tx_open(input string suite_dir,
                                                       input string name, input string options);
    import "DPI-C" function void    baser_case_tx_free(input chandle c);
    import "DPI-C" function int     baser_case_tx_line(input chandle c, input byte unsigned header,
                                                       input longint unsigned data);
    import "DPI-C" function int     baser_case_tx_beat(input chandle c, input int taken,
                                                       output longint unsigned data,
                                                       output byte unsigned keep,
                                                       output byte unsigned last,
                                                       output byte unsigned user);
    import "DPI-C" function int     baser_case_tx_idle(input chandle c,
                                                       output byte unsigned header,
                                                       output longint unsigned data);
    import "DPI-C" function longint baser_case_tx_finish(input chandle c,
                                                         input string json_path,
                                                         input string junit_path);
    import "DPI-C" function string  baser_case_tx_divergence(input chandle c, input longint k);
    // a test-pattern case (baser_case_pattern_replay)
    import "DPI-C" function chandle baser_case_pattern_open(input string suite_dir,
                                                            input string name,
                                                            input string options);
    import "DPI-C" function void    baser_case_pattern_free(input chandle c);
    import "DPI-C" function int     baser_case_pattern_next(input chandle c,
                                                            output byte unsigned header,
                                                            output longint unsigned data,
                                                            output byte unsigned enable);
    import "DPI-C" function int     baser_case_pattern_errors(input chandle c,
                                                              input longint unsigned value);
    import "DPI-C" function int     baser_case_pattern_line(input chandle c,
                                                            input byte unsigned header,
                                                            input longint unsigned data);
    import "DPI-C" function longint baser_case_pattern_finish(input chandle c,
                                                              input string json_path,
                                                              input string junit_path);
    import "DPI-C" function string  baser_case_pattern_divergence(input chandle c,
                                                                  input longint k);

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

    // Flags of baser_tx_serdes (baser_serdes_source)
    localparam int BASER_SERDES_DATA_VALID     = 1;
    localparam int BASER_SERDES_HEADER_VALID   = 2;
    localparam int BASER_SERDES_SEQUENCE_START = 4;

    // Flags of baser_check_push_beat (baser_frame_monitor::beat)
    localparam int BASER_BEAT_LAST  = 1;  // the frame's last beat (tlast)
    localparam int BASER_BEAT_ERROR = 2;  // the DUT marks the frame bad (tuser)

    // Which counter baser_rx_counter (baser_rx_model::counter) reads
    localparam int BASER_CNT_BLOCKS          = 0;  // blocks (transfers) received
    localparam int BASER_CNT_FRAMES          = 1;  // frames received
    localparam int BASER_CNT_INVALID_HEADERS = 2;  // invalid sync headers while locked
    localparam int BASER_CNT_ERRORED_BLOCKS  = 3;  // blocks into RX_E while the link was up
    localparam int BASER_CNT_LOCK_LOSSES     = 4;  // block lock losses
    localparam int BASER_CNT_HI_BER          = 5;  // hi_ber episodes
    localparam int BASER_CNT_BLOCK_LOCK      = 6;  // block lock now (0/1)
    localparam int BASER_CNT_LINK_FAULT      = 7;  // 0 ok, 1 local fault, 2 remote fault, 3 link interruption
    // with fec=fc|rs (else BASER_E_STATE):
    localparam int BASER_CNT_FEC_LOCK        = 8;  // FEC lock acquired and never lost (0/1)
    localparam int BASER_CNT_FEC_CODEWORDS   = 9;  // FEC blocks / codewords decoded while locked
    localparam int BASER_CNT_FEC_CORRECTED   = 10; // of those, corrected
    localparam int BASER_CNT_FEC_UNCORRECTED = 11; // of those, uncorrectable
    localparam int BASER_CNT_FEC_SYMBOLS     = 12; // symbols corrected (RS-FEC; bits for Clause 74)

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

    // ------------------------------------------------------------------ frames
    // What the TX models and the checkers share: the handle, and handing a frame over.
    virtual class baser_handle;
        chandle h;
        protected longint unsigned pk[BASER_BATCH];

        // Hands frame over to the frame being built (the TX model's or, with expected, the
        // checker's): eight octets a word (octet 0 in bits 7:0), BASER_BATCH words a DPI call.
        // From a copy emptied from the front: Verilator 5.006 reads a queue element by index
        // at about twice the cost of pop_front() (and this is a method, not a package
        // function: it inlines those, and drops a ref argument's queue on the way).
        protected function void hand_over(const ref byte unsigned frame[$], input bit expected);
            byte unsigned q[$] = frame;
            while (q.size() != 0) begin
                int n = q.size();
                int r;
                if (n > 8 * BASER_BATCH) n = 8 * BASER_BATCH;
                for (int k = 0; 8 * k < n; k++) begin
                    longint unsigned w = 0;
                    if (8 * k + 8 <= n) begin
                        // (one octet a statement: the pops in the order of the octets)
                        w = longint'(q.pop_front());
                        w |= longint'(q.pop_front()) << 8;
                        w |= longint'(q.pop_front()) << 16;
                        w |= longint'(q.pop_front()) << 24;
                        w |= longint'(q.pop_front()) << 32;
                        w |= longint'(q.pop_front()) << 40;
                        w |= longint'(q.pop_front()) << 48;
                        w |= longint'(q.pop_front()) << 56;
                    end else
                        for (int j = 0; 8 * k + j < n; j++) w |= longint'(q.pop_front()) << (8 * j);
                    pk[k] = w;
                end
                // (if/else, not ?: : Verilator 5.006 calls both imports of a ?: of DPI calls)
                if (expected) r = baser_check_expect_octets(h, pk, n);
                else r = baser_tx_octets(h, pk, n);
                if (r < 0)
                    die($sformatf("%s: %s", expected ? "baser_check_expect_octets" : "baser_tx_octets",
                                  baser_last_error()));
            end
        endfunction
    endclass

    // ------------------------------------------------------------------ TX models
    // What the TX model and the serdes source share: the handle, the frames.
    virtual class baser_source extends baser_handle;
        string  options;
        longint sent = 0;         // frames given

        // options: space-separated key=value: profile=ieee|verilog-ethernet ifg=12
        // dic=on|off|strict|reset-on-idle pad=1 seed=0x<58-bit scrambler state>
        // idle=<idle blocks before the first frame> scrambled=1 serdes=... offset=...
        function new(string opts = "");
            options = opts;
            h = baser_tx_new(options);
            if (h == null)
                die($sformatf("baser_tx_new(\"%s\"): %s", options, baser_last_error()));
        endfunction

        // Queue one frame (DA..payload; no FCS unless fcs_included). Returns its frame id
        // (0, 1, 2, ... in the order given).
        function longint send(const ref byte unsigned frame[$], input int fcs_included = 0);
            longint id;
            hand_over(frame, 0);
            id = baser_tx_send_built(h, fcs_included);
            if (id < 0)
                die($sformatf("baser_tx_send_built: %s", baser_last_error()));
            sent++;
            return id;
        endfunction

        // Blocks the model has made so far (up to a batch ahead of what went on the wire).
        function longint blocks(); return baser_tx_blocks(h); endfunction

        function void free();
            if (h != null) baser_tx_free(h);
            h = null;
        endfunction
    endclass

    class baser_tx_model extends baser_source;
        // Blocks made at a time, 1..BASER_BATCH: a frame given to an idle line starts within
        // `batch` clocks (1: as soon as its gap allows, as with one DPI call a clock).
        int batch = BASER_BATCH;
        protected byte unsigned     hb[BASER_BATCH];
        protected longint unsigned  db[BASER_BATCH];
        protected byte unsigned     eb[BASER_BATCH];
        protected int               idx = 0;
        protected int               have = 0;
        protected longint           ended = 0;

        // options: those of baser_source (idle=128 by default)
        function new(string opts = "");
            super.new(opts);
        endfunction

        // One clock: the next 66-bit block. Returns the events of this block
        // (BASER_EV_START | BASER_EV_SFD | BASER_EV_END).
        function int next(output bit [1:0] hdr, output bit [63:0] data);
            byte unsigned ev;
            if (idx == have) fill();
            hdr = hb[idx][1:0];
            data = db[idx];
            ev = eb[idx];
            idx++;
            if (ev[2]) ended++;
            return int'(ev);
        endfunction

        // (apart from next(): its DPI temporaries are set up only when it runs)
        protected function void fill();
            have = (batch < 1) ? 1 : (batch > BASER_BATCH ? BASER_BATCH : batch);
            if (baser_tx_next_blocks(h, hb, db, eb, have) < 0)
                die($sformatf("baser_tx_next_blocks: %s", baser_last_error()));
            idx = 0;
        endfunction

        // Serial alternative to next(): the next width (32 or 64) line bits, bit 0 first.
        // Do not mix with next() on one model.
        function bit [63:0] next_word(int width = 64);
            longint unsigned w;
            if (baser_tx_next_word(h, width, w) < 0)
                die($sformatf("baser_tx_next_word: %s", baser_last_error()));
            return w;
        endfunction

        // Frames given and not fully handed out (their /T/ not yet returned by next()).
        function longint pending();
            if (have != 0) return sent - ended;
            return baser_tx_pending(h);
        endfunction
    endclass

    // A serdes in front of a DUT whose receiver finds block lock by bit slip: the TX model's
    // line through a serdes whose unit boundary starts `offset=` bits (default 33) off the
    // block boundary; each slip the DUT asks for moves it one bit. form: "units" (one 66-bit
    // unit a clock: next()), "units-data-first" (data the first 64 bits of a unit, hdr the last
    // 2), "gearbox64" or "gearbox32" (a 64b/66b gearbox's words: next_gearbox()). idle= defaults
    // to 4096 blocks: a receiver locks from any offset before the first frame (65 slips with up
    // to 60 clocks between them, then 64 good headers).
    class baser_serdes_source extends baser_source;
        int batch = BASER_BATCH;      // clocks made at a time (a slip re-makes the rest)
        protected byte unsigned     hb[BASER_BATCH];
        protected longint unsigned  db[BASER_BATCH];
        protected byte unsigned     fb[BASER_BATCH];
        protected int               idx = 0;
        protected int               have = 0;

        function new(string opts = "", string form = "units");
            super.new({"serdes=", form, " ", opts});
        endfunction

        // The next batch; slip: the DUT's slip request this clock (made from this clock's
        // unit on; the rest of the batch is made again).
        protected function void fill(bit slip);
            int n = (batch < 1) ? 1 : (batch > BASER_BATCH ? BASER_BATCH : batch);
            if (baser_tx_serdes(h, idx, int'(slip), hb, db, fb, n) < 0)
                die($sformatf("baser_tx_serdes: %s", baser_last_error()));
            have = n;
            idx = 0;
        endfunction

        // One clock of a units serdes: the 66 bits in front of the DUT, hdr (2) and data (64).
        function void next(input bit slip, output bit [1:0] hdr, output bit [63:0] data);
            if (slip || idx == have) fill(slip);
            hdr = hb[idx][1:0];
            data = db[idx];
            idx++;
        endfunction

        // One clock of a gearbox serdes: data (64 or 32 bits), hdr, and which of them carry
        // bits this clock; seq_start on the first clock of each gearbox sequence.
        function void next_gearbox(input bit slip, output bit [63:0] data, output bit [1:0] hdr,
                                   output bit data_valid, output bit hdr_valid,
                                   output bit seq_start);
            if (slip || idx == have) fill(slip);
            hdr = hb[idx][1:0];
            data = db[idx];
            data_valid = fb[idx][0];
            hdr_valid = fb[idx][1];
            seq_start = fb[idx][2];
            idx++;
        endfunction

        // Frames given and not fully made into line bits (up to a batch ahead of the wire).
        function longint pending(); return baser_tx_pending(h); endfunction
    endclass

    // ------------------------------------------------------------------ RX model
    class baser_rx_model;
        chandle h;
        string  options;

        // options: input=blocks|serial|xgmii profile=... max_frame_length=1518 scrambled=1
        // descrambler_state=0x... strict_start=0 max_events=20 rate=10g|25g fec=none|fc|rs
        // rs_marker_period=1024 (fec: serial input; the BASER_CNT_FEC_* counters)
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

    // ------------------------------------------------------------------ checkers
    // What the line checker and the frame monitor share: the handle, the batch, the reports.
    virtual class baser_judge extends baser_handle;
        string  options;
        string  who;              // the class name in messages
        string  unit;             // "block" or "beat"
        // Units queued before they are judged, 1..BASER_BATCH (1: each as it comes).
        int     batch = BASER_BATCH;
        // each divergence found is reported with $error, at most max_reports times (the count
        // and the earliest one stay available through divergences() and first_*())
        int     max_reports = 20;
        int     reported = 0;
        longint seen = 0;         // divergences looked at
        longint pushed = 0;       // units pushed so far (the index of the next one)
        protected int tpos = 0;   // pushed % TIMES
        protected bit timed = 1;  // units are clocks (serial words are not blocks)
        protected bit finished = 0;
        protected int nq = 0;
        // the time of each unit pushed, for the last TIMES of them
        localparam int TIMES = 4096;
        localparam longint TIMES_L = 4096;
        // ($realtobits of each: Verilator 5.006 cannot keep an array of real in a class)
        protected longint times[TIMES];

        // the TX model (or serdes source) whose frames are expected (null: none)
        chandle src;

        function new(string opts, string name, string u, chandle from);
            options = opts;
            who = name;
            unit = u;
            h = baser_check_new(options);
            if (h == null)
                die($sformatf("baser_check_new(\"%s\"): %s", options, baser_last_error()));
            src = from;
            if (src != null && baser_tx_keep_sent(src) < 0)
                die($sformatf("baser_tx_keep_sent: %s", baser_last_error()));
        endfunction

        // The frames the source was given since the last call, expected in their order.
        protected function void pull();
            if (src != null && baser_check_expect_sent(h, src) < 0)
                die($sformatf("baser_check_expect_sent: %s", baser_last_error()));
        endfunction

        // One expected frame (DA..payload; no FCS unless fcs_included), in the order the DUT
        // must deliver them. Give it before the DUT sends it. Returns its expected index.
        function longint expect_frame(const ref byte unsigned frame[$], input int fcs_included = 0);
            longint idx;
            hand_over(frame, 1);
            idx = baser_check_expect_built(h, fcs_included);
            if (idx < 0)
                die($sformatf("baser_check_expect_built: %s", baser_last_error()));
            return idx;
        endfunction

        // Notes the time of the unit being pushed; true when the batch is full.
        protected function bit stamp();
            times[tpos] = $realtobits($realtime);
            tpos = (tpos + 1) & (TIMES - 1);
            pushed++;
            nq++;
            return nq >= batch;
        endfunction

        // " (time T)" of unit u, when it is among the last TIMES pushed.
        function string time_of(longint u);
            if (!timed || u < 0 || u >= pushed || pushed - u > TIMES_L) return "";
            return $sformatf(" (time %0t)", $bitstoreal(times[int'(u % TIMES_L)]));
        endfunction

        // Reports the divergences found since the last report.
        protected function void report_new();
            longint total = baser_check_divergences(h);
            for (longint k = seen; k < total && k < 1000; k++) begin
                longint blk = baser_check_divergence_block(h, k);
                longint at = baser_check_divergence_found_at(h, k);
                if (reported < max_reports) begin
                    $error("%s: found at DUT %s %0d%s: the divergence is at %s %0d%s: %s",
                           who, unit, at, time_of(at), unit, blk, time_of(blk),
                           baser_check_divergence(h, k));
                    reported++;
                    if (reported == max_reports)
                        $display("%s: no more divergences reported (max_reports = %0d)", who, max_reports);
                end
            end
            seen = total;
        endfunction

        // Judges what is queued now. Returns the divergences found.
        virtual function int flush();
            return 0;
        endfunction

        // Divergences found so far (after judging what is queued).
        function longint divergences(); void'(flush()); return baser_check_divergences(h); endfunction
        // The earliest divergence in the DUT's stream: its block (beat; 0 = the first pushed),
        // -1 none; where it was found (a frame is judged at its end); its message.
        function longint first_block();    void'(flush()); return baser_check_first_block(h);    endfunction
        function longint first_found_at(); void'(flush()); return baser_check_first_found_at(h); endfunction
        function string  first_message();  void'(flush()); return baser_check_first(h);          endfunction
        function string  last_message();   void'(flush()); return baser_check_last(h);           endfunction

        // The full judgement over the whole run (missing frames too); writes the JSON and JUnit
        // reports of `baser check --frames` ("" for none). Returns 0 pass, 1 fail.
        function int finish(string json = "", string junit = "");
            int r;
            void'(flush());
            finished = 1;
            r = baser_check_finish(h, json, junit);
            if (r < 0)
                die($sformatf("baser_check_finish: %s", baser_last_error()));
            report_new();
            return r;
        endfunction

        function void free();
            if (h != null) baser_check_free(h);
            h = null;
        endfunction
    endclass

    // The live checker on a DUT's line: push() (blocks), push_word() or push_xgmii() every
    // clock, one kind per checker.
    class baser_checker extends baser_judge;
        protected byte unsigned     qh[BASER_BATCH];
        protected longint unsigned  qd[BASER_BATCH];
        protected int               kind = -1;     // 0 blocks, 1 words, 2 XGMII
        protected int               width = 64;

        // options: input=blocks|serial|xgmii profile=... max_frame_length=... scrambled=1
        // descrambler_state=0x... strict_start=0 max_events=20 rate=10g|25g fec=none|fc|rs
        // rs_marker_period=1024 (a FEC below a serial line) name=<the expected frames' name
        // in the reports> dut=<the DUT stream's name>. from: a TX model's handle (`tx.h`)
        // whose frames, from now on, the DUT must send (a DUT that passes the line on), as if
        // each were also given to expect_frame() (without its cost: no second hand-over).
        function new(string opts = "", chandle from = null);
            super.new(opts, "baser_checker", "block", from);
        endfunction

        protected function void queue(int k, bit [7:0] h8, bit [63:0] d);
            if (kind != k) begin
                void'(flush());
                kind = k;
            end
            qh[nq] = h8;
            qd[nq] = d;
        endfunction

        // A counter of its receiver (BASER_CNT_BLOCKS .. BASER_CNT_FEC_SYMBOLS), after the
        // clocks given so far.
        function longint counter(int which); void'(flush()); return baser_check_counter(h, which); endfunction

        // One clock of the DUT's block stream. Returns the divergences found now (a batch is
        // judged when full: 0 until then).
        function int push(bit [1:0] hdr, bit [63:0] data);
            queue(0, {6'd0, hdr}, data);
            if (stamp()) return flush();
            return 0;
        endfunction

        // One clock of a serial stream (width 32 or 64 line bits, bit 0 first). Positions in
        // its messages count 66-bit blocks, and carry no times.
        function int push_word(int w, bit [63:0] word);
            if (kind == 1 && w != width) void'(flush());
            width = w;
            queue(1, 8'd0, word);
            if (stamp()) return flush();
            return 0;
        endfunction

        // One clock of an XGMII stream (lane i = data[8i+7:8i], ctrl[i]).
        function int push_xgmii(bit [63:0] data, bit [7:0] ctrl);
            queue(2, ctrl, data);
            if (stamp()) return flush();
            return 0;
        endfunction

        virtual function int flush();
            int n;
            if (finished) return 0;
            pull();
            if (nq == 0) return 0;
            // (if/else, not ?: : Verilator 5.006 calls both imports of a ?: of DPI calls)
            if (kind == 0) n = baser_check_push_blocks(h, qh, qd, nq);
            else if (kind == 1) n = baser_check_push_words(h, width, qd, nq);
            else n = baser_check_push_transfers(h, qd, qh, nq);
            nq = 0;
            if (n < 0)
                die($sformatf("baser_check_push_*: %s", baser_last_error()));
            if (kind == 1) timed = 0;   // serial: positions count blocks, not clocks
            report_new();
            return n;
        endfunction
    endclass

    // The frames checker on a DUT's frame interface (an AXI stream): beat() for each beat the
    // DUT hands over (tvalid && tready), or frame() per frame; judged against the frames a
    // source sent (given its handle `from`, e.g. `src.h`: the frames given to it from now on
    // are expected) and any given with expect_frame().
    class baser_frame_monitor extends baser_judge;
        protected longint unsigned  qd[BASER_BATCH];
        protected byte unsigned     qk[BASER_BATCH];
        protected byte unsigned     qf[BASER_BATCH];

        // options: fcs=0 (the DUT delivers frames without their FCS; 1: with it) beat=8
        // (octets in a full beat) profile=... max_frame_length=... name=... dut=...
        // (from: a chandle, not a baser_source: Verilator 5.006 does not pass a derived
        // class handle where its base class is declared)
        function new(string opts = "", chandle from = null);
            super.new({"input=frames ", opts}, "baser_frame_monitor", "beat", from);
        endfunction

        // One beat: data lane i in bits 8i+7:8i, taken where keep[i] is set; last on the
        // frame's last beat; error when the DUT marks the frame bad. Returns the divergences
        // found now (0 until the batch is judged).
        function int beat(bit [63:0] data, bit [7:0] keep, bit last, bit error = 0);
            qd[nq] = data;
            qk[nq] = keep;
            qf[nq] = {6'd0, error, last};
            if (stamp()) return flush();
            return 0;
        endfunction

        // A whole frame the DUT delivered (DA.., with the FCS when made with fcs=1); counts as
        // one beat. Returns the divergences found.
        function int frame(const ref byte unsigned octets[$], input bit error = 0);
            int n;
            void'(flush());
            hand_over(octets, 1);
            void'(stamp());
            nq = 0;
            n = baser_check_push_built(h, int'(error));
            if (n < 0)
                die($sformatf("baser_check_push_built: %s", baser_last_error()));
            report_new();
            return n;
        endfunction

        virtual function int flush();
            int n;
            if (finished) return 0;
            pull();
            if (nq == 0) return 0;
            n = baser_check_push_beats(h, qd, qk, qf, nq);
            nq = 0;
            if (n < 0)
                die($sformatf("baser_check_push_beats: %s", baser_last_error()));
            report_new();
            return n;
        endfunction
    endclass

    // ------------------------------------------------------------------ conformance cases
    // A receive case of a conformance suite (`baser gen --suite DIR`) replayed into a DUT one
    // serdes clock at a time and judged live by the model (docs/conformance.md,
    // "SystemVerilog"). Each clock: next() gives the 66 line bits (slip: the DUT's bit slip
    // request of the clock before); beat(), level(), pulse() take what the DUT said; counter()
    // before the first clock and after the last. finish() judges: the number of divergences
    // (0: pass), divergence(k) each in the model's words, the first first; JSON and JUnit
    // reports. opts: "fcs=1" (the DUT's frames hold their FCS), "frames=0" (a PHY-only top),
    // "pulses=bad_frame+bad_fcs" (the pulse outputs it has).
    class baser_case_replay;
        chandle h;
        string name;

        function new(string suite_dir, string case_name, string opts = "");
            name = case_name;
            h = baser_case_open(suite_dir, case_name, opts);
            if (h == null)
                die($sformatf("baser_case_open(%s, %s): %s", suite_dir, case_name,
                              baser_last_error()));
        endfunction

        protected function void ok(int r, string what);
            if (r < 0) die($sformatf("baser_case_%s(%s): %s", what, name, baser_last_error()));
        endfunction

        // The next serdes clock (hdr: its first 2 line bits, data the next 64); 0 once the
        // case's line is out.
        function bit next(input bit slip, output bit [1:0] hdr, output bit [63:0] data);
            byte unsigned h8;
            longint unsigned d;
            int r;
            r = baser_case_next(h, int'(slip), h8, d);
            ok(r, "next");
            hdr = h8[1:0];
            data = d;
            return r == 1;
        endfunction

        // A beat of the DUT's received frames (keep: the valid octets; last, bad: tlast and
        // the bad-frame flag).
        function void beat(bit [63:0] data, bit [7:0] keep, bit last, bit bad);
            ok(baser_case_beat(h, data, keep, int'(last), int'(bad)), "beat");
        endfunction

        // A status output's level this clock: block_lock, hi_ber, link_up, local_fault,
        // remote_fault.
        function void level(string role, bit value);
            ok(baser_case_level(h, role, int'(value)), "level");
        endfunction

        // A pulse output this clock: bad_frame, bad_fcs.
        function void pulse(string role, bit high);
            ok(baser_case_pulse(h, role, int'(high)), "pulse");
        endfunction

        // A counter's value (errored_blocks, frames_good, frames_bad, fcs_errors): before the
        // first clock and after the last.
        function void counter(string role, longint value);
            ok(baser_case_counter(h, role, value), "counter");
        endfunction

        // The verdict: the number of divergences (0: pass); reports unless "".
        function longint finish(string json_path = "", string junit_path = "");
            longint n;
            n = baser_case_finish(h, json_path, junit_path);
            if (n < 0) ok(int'(n), "finish");
            return n;
        endfunction

        // Divergence k (0: the first), in the model's words; "" past the last.
        function string divergence(longint k);
            return baser_case_divergence(h, k);
        endfunction

        function void free();
            baser_case_free(h);
            h = null;
        endfunction
    endclass

    // A transmit case of a conformance suite replayed into a DUT and judged by the model
    // (docs/conformance.md, "SystemVerilog"). Each clock, in this order: line() takes the
    // DUT's serdes output (hdr, data as it sends them; 0 once the case is done), beat() gives
    // the AXI-stream beat to drive (taken: the beat driven the clock before was taken at this
    // edge, tvalid && tready; 0: drive tvalid low), idle() the DUT's receive line (idles;
    // tx-link-fault: its Local and Remote Fault between idles). finish() judges: the number of divergences (0: pass), divergence(k) each in
    // the model's words; JSON and JUnit reports. opts: "ifg=12" (the DUT's IFG), "dic=0" (it
    // does not run the deficit idle count).
    class baser_case_tx_replay;
        chandle h;
        string name;

        function new(string suite_dir, string case_name, string opts = "");
            name = case_name;
            h = baser_case_tx_open(suite_dir, case_name, opts);
            if (h == null)
                die($sformatf("baser_case_tx_open(%s, %s): %s", suite_dir, case_name,
                              baser_last_error()));
        endfunction

        protected function void ok(int r, string what);
            if (r < 0)
                die($sformatf("baser_case_tx_%s(%s): %s", what, name, baser_last_error()));
        endfunction

        // The DUT's serdes output this clock; 0 once the case is done.
        function bit line(bit [1:0] hdr, bit [63:0] data);
            int r;
            r = baser_case_tx_line(h, {6'd0, hdr}, data);
            ok(r, "line");
            return r == 1;
        endfunction

        // The beat to drive this clock (1: tvalid high with it; user: tuser, the frame is
        // aborted, on its last beat).
        function bit beat(input bit taken, output bit [63:0] data, output bit [7:0] keep,
                          output bit last, output bit user);
            longint unsigned d;
            byte unsigned k, l, a;
            int r;
            r = baser_case_tx_beat(h, int'(taken), d, k, l, a);
            ok(r, "beat");
            data = d;
            keep = k;
            last = l[0];
            user = a[0];
            return r == 1;
        endfunction

        // The idle line for the DUT's receiver this clock.
        function void idle(output bit [1:0] hdr, output bit [63:0] data);
            byte unsigned h8;
            longint unsigned d;
            ok(baser_case_tx_idle(h, h8, d), "idle");
            hdr = h8[1:0];
            data = d;
        endfunction

        // The verdict: the number of divergences (0: pass); reports unless "".
        function longint finish(string json_path = "", string junit_path = "");
            longint n;
            n = baser_case_tx_finish(h, json_path, junit_path);
            if (n < 0) ok(int'(n), "finish");
            return n;
        endfunction

        // Divergence k (0: the first), in the model's words; "" past the last.
        function string divergence(longint k);
            return baser_case_tx_divergence(h, k);
        endfunction

        function void free();
            baser_case_tx_free(h);
            h = null;
        endfunction
    endclass

    // A test-pattern case of a suite (rx-prbs31, tx-prbs31): each clock next() gives the
    // DUT's serdes input and its test-pattern enable to drive, then after the edge errors()
    // (rx-prbs31: its error counter, a count per clock unless opts "errors=total") and line()
    // (tx-prbs31: its serdes output) take what it says; finish() judges.
    class baser_case_pattern_replay;
        chandle h;
        string name;

        function new(string suite_dir, string case_name, string opts = "");
            name = case_name;
            h = baser_case_pattern_open(suite_dir, case_name, opts);
            if (h == null)
                die($sformatf("baser_case_pattern_open(%s, %s): %s", suite_dir, case_name,
                              baser_last_error()));
        endfunction

        protected function void ok(int r, string what);
            if (r < 0)
                die($sformatf("baser_case_pattern_%s(%s): %s", what, name, baser_last_error()));
        endfunction

        // The next clock's serdes input and enable; 0 once the run is out.
        function bit next(output bit [1:0] hdr, output bit [63:0] data, output bit enable);
            byte unsigned h8, e8;
            longint unsigned d;
            int r;
            r = baser_case_pattern_next(h, h8, d, e8);
            ok(r, "next");
            hdr = h8[1:0];
            data = d;
            enable = e8[0];
            return r == 1;
        endfunction

        // The DUT's test-pattern error output after the edge.
        function void errors(longint unsigned value);
            ok(baser_case_pattern_errors(h, value), "errors");
        endfunction

        // The DUT's serdes output after the edge.
        function void line(bit [1:0] hdr, bit [63:0] data);
            ok(baser_case_pattern_line(h, {6'd0, hdr}, data), "line");
        endfunction

        // The verdict: the number of divergences (0: pass); reports unless "".
        function longint finish(string json_path = "", string junit_path = "");
            longint n;
            n = baser_case_pattern_finish(h, json_path, junit_path);
            if (n < 0) ok(int'(n), "finish");
            return n;
        endfunction

        // Divergence k (0: the first), in the model's words; "" past the last.
        function string divergence(longint k);
            return baser_case_pattern_divergence(h, k);
        endfunction

        function void free();
            baser_case_pattern_free(h);
            h = null;
        endfunction
    endclass

endpackage

/*
 * fec.c: 25GBASE-R with Clause 108 RS-FEC through the C ABI (issue #40, docs/dpi.md).
 *
 * A TX model made with `rate=25g fec=rs` hands out the FEC's line as 64-bit serdes words; the
 * words go to an RX model and to a live checker made with the same options, started 23 bits
 * into the line (the FEC finds its boundary). Every frame must come back with its octets, the
 * FEC must lock and never lose it, no codeword may be uncorrectable, and the frame check
 * must pass. Bad `rate=`, `fec=` and `rs_marker_period=` values are refused with messages
 * naming the option.
 *
 *   cc -std=c99 -I capi/include capi/tests/fec.c capi/target/debug/libbaser.a \
 *      -lpthread -ldl -lm -o fec && ./fec
 *
 * Exit status: 0 when every expectation holds, 1 otherwise.
 */
#include <stdio.h>
#include <string.h>
#include "baser.h"

#define FRAMES 40
#define LINE "rate=25g fec=rs rs_marker_period=16"

static int failures = 0;

static void expect(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "FAILED: %s (last error: %s)\n", what, baser_last_error());
        failures++;
    }
}

static int length(int i) { return 60 + (i * 97) % 1455; }

static void make_frame(uint8_t *f, int len, int seed) {
    for (int i = 0; i < len; i++)
        f[i] = (uint8_t)(i * 7 + seed * 13);
}

/* `option` is refused by `make` with a message holding `words`. */
static void refused(void *handle, const char *option, const char *words) {
    char what[200];
    snprintf(what, sizeof what, "\"%s\" refused naming \"%s\"", option, words);
    expect(handle == NULL && strstr(baser_last_error(), words) != NULL, what);
}


/* Line bits packed into 64-bit words for an RX model, first bit in bit 0. */
typedef struct {
    baser_rx *rx;
    uint64_t acc;
    int bits;
} packer;

static void pack(packer *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) {
        p->acc |= ((v >> i) & 1) << p->bits;
        if (++p->bits == 64) {
            baser_rx_push_word(p->rx, 64, p->acc);
            p->acc = 0;
            p->bits = 0;
        }
    }
}

/* A FEC's line through a serdes source of `form`, `offset` bits off the unit boundary: its
 * header and data bits, where valid, in order, are the line, whatever it cuts. Fed to an RX
 * model the FEC locks once and every frame comes back. Returns the frames received. */
static int serdes_fec(const char *line, const char *form) {
    char opts[160];
    snprintf(opts, sizeof opts, "%s serdes=%s offset=17", line, form);
    baser_tx *tx = baser_tx_new(opts);
    char rx_opts[160];
    snprintf(rx_opts, sizeof rx_opts, "input=serial %s", line);
    baser_rx *rx = baser_rx_new(rx_opts);
    expect(tx && rx, opts);
    if (!tx || !rx)
        return -1;
    uint8_t frame[1600];
    for (int i = 0; i < 12; i++) {
        make_frame(frame, length(i), i);
        baser_tx_send(tx, frame, (size_t)length(i), 0);
    }
    packer p = {rx, 0, 0};
    uint8_t hdr[64], flags[64];
    uint64_t data[64];
    int width = strcmp(form, "gearbox32") == 0 ? 32 : 64;
    int data_first = strcmp(form, "units-data-first") == 0;
    for (int batch = 0; batch < 1200; batch++) {
        expect(baser_tx_serdes(tx, batch ? 64 : 0, 0, hdr, data, flags, 64) == 0, "serdes words");
        for (int i = 0; i < 64; i++) {
            /* units-data-first: the unit's first 64 bits in data, its last 2 in hdr. */
            if ((flags[i] & BASER_SERDES_HEADER_VALID) && !data_first)
                pack(&p, hdr[i], 2);
            if (flags[i] & BASER_SERDES_DATA_VALID)
                pack(&p, width == 32 ? data[i] & 0xffffffffULL : data[i], width);
            if ((flags[i] & BASER_SERDES_HEADER_VALID) && data_first)
                pack(&p, hdr[i], 2);
        }
    }
    int n = 0;
    while (baser_rx_frame_len(rx) > 0) {
        expect(strcmp(baser_rx_frame_class(rx), "ok") == 0, "serdes FEC frame ok");
        baser_rx_frame_pop(rx);
        n++;
    }
    expect(baser_rx_counter(rx, BASER_CNT_FEC_LOCK) == 1, "serdes FEC: locked once");
    expect(baser_rx_counter(rx, BASER_CNT_FEC_UNCORRECTED) == 0, "serdes FEC: nothing uncorrectable");
    expect(baser_rx_counter(rx, BASER_CNT_FEC_CORRECTED) == 0, "serdes FEC: nothing corrected");
    baser_tx_free(tx);
    baser_rx_free(rx);
    return n;
}

int main(void) {
    uint8_t frame[1600], got[1700];
    baser_tx *tx = baser_tx_new(LINE " idle=300");
    baser_rx *rx = baser_rx_new("input=serial " LINE);
    baser_check *chk = baser_check_new("input=serial name=sent dut=line " LINE);
    expect(tx && rx && chk, "models made with " LINE);
    if (!tx || !rx || !chk)
        return 1;
    for (int i = 0; i < FRAMES; i++) {
        make_frame(frame, length(i), i);
        expect(baser_tx_send(tx, frame, (size_t)length(i), 0) == i, "frame sent");
        expect(baser_check_expect(chk, frame, (size_t)length(i), 0) == i, "frame expected");
    }
    /* The line 23 bits late: the FEC finds the boundary. Then until every frame is out,
     * and two codewords more (the FEC's latency). */
    uint64_t carry = 0;
    long after = 0;
    for (long clock = 0; clock < 200000 && after < 200; clock++) {
        uint64_t w = 0;
        expect(baser_tx_next_word(tx, 64, &w) == 0, "next word");
        uint64_t late = (w << 23) | carry;
        carry = w >> 41;
        expect(baser_rx_push_word(rx, 64, late) >= 0, "rx push");
        expect(baser_check_push_word(chk, 64, late) >= 0, "check push");
        if (baser_tx_pending(tx) == 0)
            after++;
    }
    int n = 0;
    while (baser_rx_frame_len(rx) > 0) {
        int len = baser_rx_frame_copy(rx, got, sizeof got);
        make_frame(frame, length(n), n);
        expect(len == length(n) + 4 && memcmp(got, frame, (size_t)length(n)) == 0, "frame back whole");
        expect(strcmp(baser_rx_frame_class(rx), "ok") == 0, "frame class ok");
        baser_rx_frame_pop(rx);
        n++;
    }
    expect(n == FRAMES, "every frame received");
    expect(baser_rx_counter(rx, BASER_CNT_FEC_LOCK) == 1, "RS-FEC locked, never lost");
    expect(baser_rx_counter(rx, BASER_CNT_FEC_CODEWORDS) > 16, "codewords decoded");
    expect(baser_rx_counter(rx, BASER_CNT_FEC_UNCORRECTED) == 0, "no uncorrected codeword");
    expect(baser_rx_counter(rx, BASER_CNT_FEC_CORRECTED) == 0, "nothing to correct");
    expect(baser_check_counter(chk, BASER_CNT_FEC_UNCORRECTED) == 0, "checker: no uncorrected codeword");
    expect(baser_check_counter(chk, BASER_CNT_FRAMES) == FRAMES, "checker: every frame");
    expect(baser_rx_finish(rx, NULL) == 0, "the RX model's report is clean");
    expect(baser_check_finish(chk, NULL, NULL) == 0, "the frame check passes");
    expect(baser_check_divergences(chk) == 0, "no divergence");
    baser_tx_free(tx);
    baser_rx_free(rx);
    baser_check_free(chk);

    /* Without a FEC the FEC counters are a state error. */
    baser_rx *plain = baser_rx_new("input=serial");
    expect(baser_rx_counter(plain, BASER_CNT_FEC_LOCK) == BASER_E_STATE, "no FEC: BASER_E_STATE");
    baser_rx_free(plain);

    refused(baser_tx_new("fec=rs"), "fec=rs", "option fec=rs: RS-FEC (Clause 108) is defined for 25GBASE-R");
    refused(baser_tx_new("rate=40g"), "rate=40g", "option rate=40g");
    refused(baser_rx_new("fec=ldpc"), "fec=ldpc", "option fec=ldpc");
    refused(baser_rx_new("rate=25g fec=rs rs_marker_period=0"), "rs_marker_period=0", "option rs_marker_period=0");
    refused(baser_rx_new("input=blocks fec=fc"), "input=blocks fec=fc", "option fec=fc");
    refused(baser_check_new("input=frames fec=fc"), "input=frames fec=fc", "option fec=fc");
    refused(baser_tx_new("fec=fc scrambled=0"), "fec=fc scrambled=0", "option fec=fc");

    /* The FEC's receive modes (docs/dpi.md): set by name on the RX model and the checker,
     * refused for the FEC that lacks them, both RS-FEC bypasses at once, and on a TX model. */
    baser_rx *bypass = baser_rx_new("input=serial " LINE " rs_bypass_indication=1");
    expect(bypass != NULL, "rs_bypass_indication=1 taken");
    baser_rx_free(bypass);
    baser_check *ei = baser_check_new("input=serial fec=fc fc_error_indication=1");
    expect(ei != NULL, "fc_error_indication=1 taken");
    baser_check_free(ei);
    refused(baser_rx_new("input=serial fec=fc rs_bypass_correction=1"), "fec=fc rs_bypass_correction=1",
            "option rs_bypass_correction=1: an RS-FEC (Clause 108) setting, and the FEC is fc");
    refused(baser_check_new("input=serial " LINE " rs_bypass_correction=1 rs_bypass_indication=1"),
            "both bypasses", "option rs_bypass_indication=1: not with rs_bypass_correction");
    refused(baser_rx_new("input=serial " LINE " fc_error_indication=1"), "rs fc_error_indication=1",
            "option fc_error_indication=1: a Clause 74 BASE-R FEC setting, and the FEC is rs");
    refused(baser_rx_new("input=serial fec=fc fc_error_indication=2"), "fc_error_indication=2",
            "option fc_error_indication=2: expected 0 or 1");
    refused(baser_tx_new("fec=fc fc_error_indication=1"), "tx fc_error_indication=1",
            "unknown option `fc_error_indication`");

    /* Clause 74 error indication at work: a 12-bit burst in one FEC block, uncorrectable;
     * with the option its blocks 0, 8, 16 and 24 reach the PCS with invalid sync headers. */
    for (int on = 0; on < 2; on++) {
        baser_tx *t = baser_tx_new("fec=fc idle=300");
        baser_rx *r = baser_rx_new(on ? "input=serial fec=fc fc_error_indication=1" : "input=serial fec=fc");
        expect(t && r, "Clause 74 models made");
        if (!t || !r)
            return 1;
        for (int i = 0; i < 4; i++) {
            make_frame(frame, length(i), i);
            baser_tx_send(t, frame, (size_t)length(i), 0);
        }
        for (long clock = 0; clock < 3000; clock++) {
            uint64_t w = 0;
            baser_tx_next_word(t, 64, &w);
            if (clock == 33 * 6 + 10)
                w ^= 0xfffULL << 20;
            baser_rx_push_word(r, 64, w);
        }
        expect(baser_rx_counter(r, BASER_CNT_FEC_UNCORRECTED) == 1, "one uncorrectable FEC block");
        expect(baser_rx_counter(r, BASER_CNT_INVALID_HEADERS) == (on ? 4 : 0),
               on ? "error indication: 4 invalid headers" : "no error indication: none");
        baser_tx_free(t);
        baser_rx_free(r);
    }

    /* Every serdes form carries the FEC's line: 12 frames back through each. */
    const char *forms[] = {"units", "units-data-first", "gearbox64", "gearbox32"};
    const char *lines[] = {LINE, "fec=fc"};
    for (int l = 0; l < 2; l++)
        for (int f = 0; f < 4; f++) {
            char what[120];
            snprintf(what, sizeof what, "%s serdes=%s: 12 frames back", lines[l], forms[f]);
            expect(serdes_fec(lines[l], forms[f]) == 12, what);
        }

    if (failures == 0)
        printf("fec: %d frames through RS-FEC at 25G, PASS\n", n);
    return failures == 0 ? 0 : 1;
}

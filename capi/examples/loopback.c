/*
 * loopback.c: the baser C ABI in a plain C program (docs/dpi.md).
 *
 * A TX model sends frames one block a clock; the blocks go to an RX model and to a live
 * checker, as a test bench would wire the model around a DUT. A second run flips one line bit
 * inside a frame: the checker names the block at once, and the frame check at the end fails.
 *
 *   cc -std=c99 -I capi/include capi/examples/loopback.c capi/target/debug/libbaser.a \
 *      -lpthread -ldl -lm -o loopback && ./loopback [report.json report.xml]
 *
 * Exit status: 0 when every expectation below holds, 1 otherwise.
 */
#include <stdio.h>
#include <string.h>
#include "baser.h"

#define FRAMES 6
static const int lengths[FRAMES] = {60, 64, 100, 1514, 61, 300};

static int failures = 0;

static void expect(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "FAILED: %s (last error: %s)\n", what, baser_last_error());
        failures++;
    }
}

static void make_frame(uint8_t *f, int len, int seed) {
    for (int i = 0; i < len; i++)
        f[i] = (uint8_t)(i * 7 + seed * 13);
    memset(f, 0xff, 6); /* broadcast destination */
}

/* One run: FRAMES frames through TX -> (flip) -> RX and the checker. Returns the checker's
 * verdict (0 pass, 1 fail); the first divergence's block goes to *first. */
static int run(long flip_block, long *first, const char *json, const char *junit) {
    uint8_t frame[1600];
    baser_tx *tx = baser_tx_new("profile=ieee ifg=12 idle=16 seed=0x155555555555555");
    baser_rx *rx = baser_rx_new("input=blocks");
    baser_check *chk = baser_check_new("input=blocks name=loopback dut=tx-model");
    expect(tx && rx && chk, "the models are made");
    if (!tx || !rx || !chk)
        return -1;
    for (int i = 0; i < FRAMES; i++) {
        make_frame(frame, lengths[i], i);
        expect(baser_tx_send(tx, frame, (size_t)lengths[i], 0) == i, "send returns the frame id");
        expect(baser_check_expect(chk, frame, (size_t)lengths[i], 0) == i, "expect returns the index");
    }
    int received = 0;
    /* Until every frame is sent, and a few clocks more: the receiver decides a block when
     * the next one arrives. */
    long tail = 4;
    for (long clock = 0; tail > 0; clock++) {
        if (baser_tx_pending(tx) == 0)
            tail--;
        uint8_t hdr;
        uint64_t payload;
        int ev = baser_tx_next_block(tx, &hdr, &payload);
        expect(ev >= 0, "next_block");
        if (clock == flip_block)
            payload ^= 1ull << 33;
        int waiting = baser_rx_push_block(rx, hdr, payload);
        expect(waiting >= 0, "rx push");
        int found = baser_check_push_block(chk, hdr, payload);
        expect(found >= 0, "check push");
        if (found > 0)
            printf("  clock %ld: %s\n", clock, baser_check_last(chk));
        while (baser_rx_frame_len(rx) >= 0) {
            int len = baser_rx_frame_len(rx);
            if (flip_block < 0)
                printf("  frame %d: %d octets with FCS, class %s, /S/ in block %lld\n", received,
                       len, baser_rx_frame_class(rx), (long long)baser_rx_frame_block(rx));
            received++;
            baser_rx_frame_pop(rx);
        }
    }
    expect(received == FRAMES, "every frame received");
    expect(baser_rx_counter(rx, BASER_CNT_BLOCK_LOCK) == 1, "the receiver is locked");
    expect(baser_rx_counter(rx, 99) == BASER_E_ARG, "an unknown counter is refused");
    *first = (long)baser_check_first_block(chk);
    int verdict = baser_check_finish(chk, json, junit);
    expect(baser_check_finish(chk, NULL, NULL) == BASER_E_STATE, "finish twice is refused");
    expect(baser_rx_finish(rx, NULL) == (flip_block < 0 ? 0 : 1), "the RX verdict");
    baser_tx_free(tx);
    baser_rx_free(rx);
    baser_check_free(chk);
    return verdict;
}

int main(int argc, char **argv) {
    long first;
    printf("baser %s: a clean run\n", baser_version());
    int v = run(-1, &first, argc > 2 ? argv[1] : NULL, argc > 2 ? argv[2] : NULL);
    expect(v == 0, "a clean run passes");
    expect(first == -1, "a clean run has no divergence");

    /* Block 40 is inside frame 2 (100 octets: blocks 37..51 with idle=16). */
    printf("a run with line bit 35 of block 40 flipped\n");
    v = run(40, &first, NULL, NULL);
    expect(v == 1, "the flipped bit fails the check");
    expect(first == 40, "the first divergence is at block 40");

    /* Bad arguments give codes and messages, never a crash. */
    expect(baser_tx_new("ifg=twelve") == NULL, "a bad option is refused");
    printf("bad option: %s\n", baser_last_error());
    expect(strstr(baser_last_error(), "ifg") != NULL, "the message names the option");
    expect(baser_rx_push_block(NULL, 1, 0) == BASER_E_NULL, "a null handle is refused");
    baser_rx *x = baser_rx_new("input=xgmii");
    expect(baser_rx_push_block(x, 1, 0) == BASER_E_STATE, "a block to an XGMII model is refused");
    expect(baser_rx_push_block(x, 1, 0) == BASER_E_STATE, "...twice");
    baser_rx_free(x);
    baser_tx *t = baser_tx_new(NULL);
    uint64_t w;
    expect(baser_tx_next_word(t, 48, &w) == BASER_E_ARG, "a 48-bit word is refused");
    baser_tx_free(t);

    printf("%s\n", failures ? "FAIL" : "OK");
    return failures ? 1 : 0;
}

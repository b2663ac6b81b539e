/*
 * clocks.c: the per-clock cost of the baser C ABI without a simulator (docs/dpi.md, Speed).
 *
 * The calls baser_pkg.sv makes for examples/dpi-verilator/tb/bench.sv's `check` mode, from C:
 * frames of 60..1514 octets handed over 512 octets a call (baser_tx_octets, then
 * baser_tx_send_built) while fewer than 2 wait, blocks taken 64 at a time
 * (baser_tx_next_blocks), and a checker made to expect the TX model's frames
 * (baser_check_expect_sent) judging them 64 at a time (baser_check_push_blocks). What the
 * bench costs beyond this is the simulator's: the SystemVerilog around the calls.
 *
 *   cc -O2 -I capi/include capi/examples/clocks.c -L$LIB -lbaser -Wl,-rpath,$LIB -o clocks
 *   ./clocks [CLOCKS [CHECK]]      # CHECK 0: the TX model alone
 *
 * Prints "clocks: N clocks, F frames, D divergences, finish V: T ns/clock (cpu)". Exit
 * status: 0 when the checker found no divergence and passed, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "baser.h"

#define POOL 64

static uint64_t rng = 1;

static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint8_t pool[POOL][1514];
static int pool_len[POOL];

/* Hands frame k over as baser_pkg.sv does: 512 octets a call, 8 to a word. */
static int send(baser_tx *tx, int k) {
    uint64_t words[BASER_BATCH];
    for (int i = 0; i < pool_len[k]; i += 8 * BASER_BATCH) {
        int n = pool_len[k] - i < 8 * BASER_BATCH ? pool_len[k] - i : 8 * BASER_BATCH;
        memset(words, 0, sizeof words);
        memcpy(words, pool[k] + i, (size_t)n); /* octet 0 in bits 7:0 (little-endian host) */
        if (baser_tx_octets(tx, words, n) < 0)
            return -1;
    }
    return baser_tx_send_built(tx, 0) < 0 ? -1 : 0;
}

int main(int argc, char **argv) {
    long clocks = argc > 1 ? atol(argv[1]) : 1000000;
    int check = argc > 2 ? atoi(argv[2]) : 1;
    for (int i = 0; i < POOL; i++) {
        pool_len[i] = 60 + (int)(rnd() % 1455);
        for (int j = 0; j < pool_len[i]; j++)
            pool[i][j] = (uint8_t)rnd();
    }
    baser_tx *tx = baser_tx_new("idle=100");
    baser_check *chk = check ? baser_check_new("name=clocks") : NULL;
    if (!tx || (check && (!chk || baser_tx_keep_sent(tx) < 0))) {
        fprintf(stderr, "clocks: %s\n", baser_last_error());
        return 1;
    }
    uint8_t hdr[BASER_BATCH], ev[BASER_BATCH], qh[BASER_BATCH];
    uint64_t data[BASER_BATCH], qd[BASER_BATCH];
    int have = 0, idx = 0, nq = 0, in_flight = 0;
    long sent = 0, divergences = 0;
    int failed = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    for (long c = 0; c < clocks; c++) {
        if (c < clocks - 600 && in_flight < 2) {
            if (send(tx, (int)(sent % POOL)) < 0) {
                failed = 1;
                break;
            }
            sent++;
            in_flight++;
        }
        if (idx == have) {
            if (baser_tx_next_blocks(tx, hdr, data, ev, BASER_BATCH) < 0) {
                failed = 1;
                break;
            }
            have = BASER_BATCH;
            idx = 0;
        }
        if (ev[idx] & BASER_EV_END)
            in_flight--;
        if (chk) {
            qh[nq] = hdr[idx];
            qd[nq] = data[idx];
            if (++nq == BASER_BATCH) {
                int n = -1;
                if (baser_check_expect_sent(chk, tx) >= 0)
                    n = baser_check_push_blocks(chk, qh, qd, nq);
                if (n < 0) {
                    failed = 1;
                    break;
                }
                divergences += n;
                nq = 0;
            }
        }
        idx++;
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    if (chk && nq && !failed)
        divergences += baser_check_push_blocks(chk, qh, qd, nq);
    int verdict = chk ? baser_check_finish(chk, "", "") : 0;
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("clocks: %ld clocks, %ld frames, %ld divergences, finish %d: %.1f ns/clock (cpu)\n",
           clocks, sent, divergences, verdict, secs / (double)clocks * 1e9);
    if (failed)
        fprintf(stderr, "clocks: %s\n", baser_last_error());
    if (chk)
        baser_check_free(chk);
    baser_tx_free(tx);
    return failed || divergences != 0 || verdict != 0;
}

// sim_main.cpp: the C++ main of the Verilator build of examples/dpi-verilator. Toggles the
// test bench's clock (156.25 MHz: 6.4 ns period) until the bench calls $finish or $fatal,
// then prints the simulated clocks, the wall time and the CPU time (the process's: bench.sh
// compares those, steadier than wall time on a loaded machine). Exit status: 1 when the
// bench's `failed` output is high at the end (a failed expectation, a failed baser_pkg call)
// or the run stopped on an error, else 0. Serves tb.sv and (built with --prefix Vtb) bench.sv,
// and examples/conformance/dpi (its tb.sv and bugs.sv).
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>

#include "Vtb.h"
#include "verilated.h"

int main(int argc, char** argv) {
    const std::unique_ptr<VerilatedContext> ctx{new VerilatedContext};
    // $fatal ends the run with exit status 1 instead of abort()
    ctx->fatalOnError(false);
    // the checker reports divergences with $error; the bench goes on after them and gives its
    // own verdict (+verilator+error+limit+N overrides)
    ctx->errorLimit(1 << 30);
    ctx->commandArgs(argc, argv);
    const std::unique_ptr<Vtb> top{new Vtb{ctx.get(), "tb"}};

    top->clk = 0;
    top->eval();
    unsigned long long cycles = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    while (!ctx->gotFinish()) {
        ctx->timeInc(3200);   // ps (timescale 1ns/1ps)
        top->clk = 1;
        top->eval();
        ctx->timeInc(3200);
        top->clk = 0;
        top->eval();
        ++cycles;
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    top->final();
    std::printf("sim: %llu clocks in %.3f s: %.0f clocks/s (cpu %.3f s)\n", cycles, secs,
                secs > 0 ? cycles / secs : 0.0, cpu);
    std::fflush(stdout);
    return (ctx->gotError() || top->failed) ? 1 : 0;
}

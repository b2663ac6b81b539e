// sim_main.cpp: the C++ main of the Verilator build of tb.sv. Toggles the bench's clock
// (6.4 ns) until the bench calls $finish or $fatal; prints the clocks and the wall time.
// Exit status: 1 when the bench's `failed` output is high at the end or the run stopped on
// an error, else 0.
#include <chrono>
#include <cstdio>
#include <memory>

#include "Vtb.h"
#include "verilated.h"

int main(int argc, char** argv) {
    const std::unique_ptr<VerilatedContext> ctx{new VerilatedContext};
    ctx->fatalOnError(false);
    ctx->commandArgs(argc, argv);
    const std::unique_ptr<Vtb> top{new Vtb{ctx.get(), "tb"}};
    top->clk = 0;
    top->eval();
    unsigned long long cycles = 0;
    const auto t0 = std::chrono::steady_clock::now();
    while (!ctx->gotFinish()) {
        ctx->timeInc(3200);
        top->clk = 1;
        top->eval();
        ctx->timeInc(3200);
        top->clk = 0;
        top->eval();
        ++cycles;
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    top->final();
    std::printf("sim: %llu clocks in %.3f s\n", cycles, secs);
    std::fflush(stdout);
    return (ctx->gotError() || top->failed) ? 1 : 0;
}

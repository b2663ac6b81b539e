#!/usr/bin/env python3
"""Build pcs_tx.v with Icarus Verilog and run test_dump.py with cocotb's runner API.

Two cases, each in its own sim_build/<case>/ (the dumps and baser's inputs stay there):
  good   pcs_tx as written                 -> test_correct_dut_passes
  fault  pcs_tx with FAULT_BLOCK planted   -> test_planted_fault_fails
Prints "N passed, M failed" last; exits 1 if any test failed or none ran.
"""

import sys
from pathlib import Path

from cocotb_tools.check_results import get_results
from cocotb_tools.runner import get_runner

HERE = Path(__file__).resolve().parent

CASES = [
    ("good", {}, "test_correct_dut_passes"),
    ("fault", {"FAULT_BLOCK": 300}, "test_planted_fault_fails"),
]


def main():
    runner = get_runner("icarus")
    passed = failed = 0
    for name, parameters, testcase in CASES:
        build_dir = HERE / "sim_build" / name
        runner.build(
            sources=[HERE / "pcs_tx.v"],
            hdl_toplevel="pcs_tx",
            parameters=parameters,
            build_dir=build_dir,
            always=True,
            timescale=("1ns", "1ps"),
        )
        results = build_dir / "results.xml"
        try:
            runner.test(
                test_module="test_dump",
                hdl_toplevel="pcs_tx",
                testcase=testcase,
                build_dir=build_dir,
                test_dir=build_dir,
                results_xml=str(results),
            )
        except SystemExit as e:  # the simulator itself failed
            print(f"{name}: simulator exited with {e.code}", file=sys.stderr)
        try:
            tests, fails = get_results(results)
        except RuntimeError as e:
            print(f"{name}: {e}", file=sys.stderr)
            tests, fails = 1, 1
        passed += tests - fails
        failed += fails
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed == len(CASES) else 1


if __name__ == "__main__":
    sys.exit(main())

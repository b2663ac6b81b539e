#!/usr/bin/env python3
"""Build loopback.v with Icarus Verilog and run test_loopback.py with cocotb's runner API.

Two builds, each in its own sim_build/<case>/:
  good   the pipeline as written        -> test_loopback, test_bit_offset, test_lane4_starts_and_frame_times,
                                           test_narrow_interface, test_gearbox_stalls, ...,
                                           test_rs_fec_25g
  fault  FAULT_BLOCK=300 (one bit flip) -> test_planted_fault_is_caught
  xgmii  the pipeline as written        -> test_xgmii.py: the XGMII source and sink against
                                           cocotbext-eth's
Prints "N passed, M failed" last; exits 1 if any test failed or fewer ran than expected.
"""

import sys
from pathlib import Path

try:  # cocotb 2
    from cocotb_tools.check_results import get_results
    from cocotb_tools.runner import get_runner
except ImportError:  # cocotb 1.9
    from cocotb.runner import get_results, get_runner

HERE = Path(__file__).resolve().parent

CASES = [
    ("good", {}, "test_loopback", "test_loopback,test_bit_offset,test_lane4_starts_and_frame_times,"
     "test_narrow_interface,test_gearbox_stalls,test_injected_faults,test_serdes_ordered_sets,"
     "test_usxgmii_replication,test_rs_fec_25g", 9),
    ("fault", {"FAULT_BLOCK": 300}, "test_loopback", "test_planted_fault_is_caught", 1),
    ("xgmii", {}, "test_xgmii", "test_source_equals_cocotbext,test_sink_equals_cocotbext,"
     "test_narrow_xgmii,test_ordered_sets,test_reset_abandons_the_frame_under_way", 5),
]


def main():
    runner = get_runner("icarus")
    passed = failed = 0
    expected = 0
    for name, parameters, module, testcase, n in CASES:
        expected += n
        build_dir = HERE / "sim_build" / name
        runner.build(
            sources=[HERE / "loopback.v"],
            hdl_toplevel="loopback",
            parameters=parameters,
            build_dir=build_dir,
            always=True,
            timescale=("1ns", "1ps"),
        )
        results = build_dir / "results.xml"
        try:
            runner.test(
                test_module=module,
                hdl_toplevel="loopback",
                testcase=testcase.split(","),
                build_dir=build_dir,
                test_dir=HERE,
                results_xml=str(results),
            )
        except SystemExit as e:  # the simulator itself failed
            print(f"{name}: simulator exited with {e.code}", file=sys.stderr)
        try:
            tests, fails = get_results(results)
        except RuntimeError as e:
            print(f"{name}: {e}", file=sys.stderr)
            tests, fails = n, n
        passed += tests - fails
        failed += fails
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed == expected else 1


if __name__ == "__main__":
    sys.exit(main())

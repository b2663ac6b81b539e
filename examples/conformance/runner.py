#!/usr/bin/env python3
"""Builds the example DUT (rtl/) with Icarus and runs the conformance catalogue on it with
cocotb: the correct DUT must pass every case, at 10G and built as a 25G PCS, and its PCS alone
(conf_phy, PHY-only: XGMII out and in) every case it can run; each planted bug must fail the
case that targets it (by name), as the runner checks in the JSON report.

    python runner.py            # all builds
    python runner.py good       # one build: good, good-25g, phy, BUG_GOOD_FLAG, BUG_66_RXC, ...
Prints "N passed, M failed" last (one per build); exits 1 on any failure.
"""

import json
import sys
from pathlib import Path

try:  # cocotb 2
    from cocotb_tools.runner import get_runner
except ImportError:  # cocotb 1.9
    from cocotb.runner import get_runner

HERE = Path(__file__).resolve().parent
SOURCES = [HERE / "rtl" / f
           for f in ("conf_dut.v", "conf_phy.v", "conf_mac_only.v", "conf_pcs.v", "conf_mac.v",
                     "conf_prbs31.v")]

# The 25G builds: the same MAC + PCS with the 25GBASE-R BER monitor (97 invalid headers) in a
# window shortened to 1000 blocks (2 ms is 781 250): the catalogue's model runs that window.
WINDOW_25G = 1000
AT_25G = {"BER_THRESHOLD": 97, "BER_WINDOW": WINDOW_25G}

# build -> the case that must catch it (None: every case must pass), the rate, the RTL's
# parameters, and whether the build's name is a `define that plants the bug; PHY_BUILDS are
# the PCS alone (conf_phy: serdes and XGMII, test_phy.py), judged by its XGMII output and
# driven at its XGMII input: every case it can run must pass (the link fault cases
# and tx-abort are skipped)
BUILDS = [
    ("good", None, "10g", {}, False),
    ("BUG_GOOD_FLAG", "rx-terminate-lanes", "10g", {}, True),
    ("BUG_OS_MASK", "rx-ordered-set-4b", "10g", {}, True),
    ("BUG_IFG8_DROP", "rx-ifg", "10g", {}, True),
    ("BUG_NO_DIC", "tx-dic", "10g", {}, True),
    ("BUG_NO_RF", "tx-link-fault", "10g", {}, True),
    ("BUG_BER_15", "rx-hi-ber-15", "10g", {}, True),
    # the PRBS31 checker skips the sync headers; the generator sends a data header
    ("BUG_PRBS_HDR", "rx-prbs31", "10g", {}, True),
    ("BUG_PRBS_TX_HDR", "tx-prbs31", "10g", {}, True),
    ("good-25g", None, "25g", AT_25G, False),
    # a 25G PCS that kept the 10G BER monitor: 16 invalid headers in its window raise hi_ber
    ("BUG_25G_BER_16", "rx-hi-ber-96", "25g", {**AT_25G, "BER_THRESHOLD": 16}, False),
]
PHY_BUILDS = [
    ("phy", None, "10g", {}, False),
    # the /S/ of a 0x66 block (ordered set, then start in lane 4) marked data on the XGMII
    ("BUG_66_RXC", "rx-ordered-set-66", "10g", {}, True),
    # a /T/ in lane 7 sent with lane 6's block type
    ("BUG_T7_TYPE", "tx-lengths", "10g", {}, True),
]
# The PHY-only top cannot run these: no link fault outputs (4), no abort on an XGMII input,
# no RS to react to a received fault (tx-link-fault).
PHY_SKIPPED = 6
# MAC_BUILDS: the MAC alone (conf_mac_only: AXI-stream and XGMII, test_mac.py), its XGMII input
# given each case's line as the model's PCS receiver decodes it: every case but those of a
# PCS's outputs (block lock, hi_ber: 4 at 10G; its test pattern: 2) must pass; a MAC bug is
# caught there too.
MAC_BUILDS = [
    ("mac", None, "10g", {}, False),
    ("mac-BUG_IFG8_DROP", "rx-ifg", "10g", {}, "BUG_IFG8_DROP"),
]
MAC_SKIPPED = 6


TOPS = {"dut": ("conf_dut", "test_conformance", 0), "phy": ("conf_phy", "test_phy", PHY_SKIPPED),
        "mac": ("conf_mac_only", "test_mac", MAC_SKIPPED)}


def run_build(runner, name, target, rate, parameters, define, top="dut"):
    build_dir = HERE / "sim_build" / name
    report = build_dir / "report"
    top, module, may_skip = TOPS[top]
    defines = {define if isinstance(define, str) else name: 1} if define else {}
    runner.build(sources=SOURCES, hdl_toplevel=top, build_dir=build_dir, always=True,
                 defines=defines, parameters=parameters,
                 timescale=("1ns", "1ps"))
    (report / "conformance.json").unlink(missing_ok=True)  # never read a past run's
    env = {"REPORT_DIR": str(report), "RATE": rate}
    if "BER_WINDOW" in parameters:
        env["BER_WINDOW"] = str(parameters["BER_WINDOW"])
    if target is not None:
        env["CASES"] = target
    try:
        runner.test(test_module=module, hdl_toplevel=top, build_dir=build_dir,
                    test_dir=HERE, results_xml=str(build_dir / "results.xml"), extra_env=env)
    except SystemExit as e:
        print(f"{name}: simulator exited with {e.code}", file=sys.stderr)
    try:
        cases = json.loads((report / "conformance.json").read_text())["cases"]
    except (OSError, ValueError) as e:
        print(f"{name}: no report ({e})", file=sys.stderr)
        return False
    if target is None:
        skipped = [c["name"] for c in cases if c["verdict"] == "skipped"]
        bad = [c["name"] for c in cases if c["verdict"] not in ("pass", "skipped")]
        if len(skipped) != may_skip:
            bad += skipped
        ok = not bad and len(cases) > 0
        print(f"{name}: {len(cases) - len(bad) - len(skipped)} of {len(cases)} cases pass at "
              f"{rate}" + (f", {len(skipped)} skipped" if skipped else "")
              + (f"; failed: {', '.join(bad)}" if bad else ""))
        for c in cases:
            print(f"  {c['name']:24} {c['verdict']:7} {c['seconds']:6.1f} s {c['clocks']:6} clocks")
        return ok
    hit = [c for c in cases if c["name"] == target and c["verdict"] == "fail"]
    if hit:
        print(f"{name}: caught by {target}: {hit[0]['divergences'][0]}")
    else:
        print(f"{name}: NOT caught by {target}")
    return bool(hit)


def main(argv):
    runner = get_runner("icarus")
    builds = ([(*b, "dut") for b in BUILDS] + [(*b, "phy") for b in PHY_BUILDS]
              + [(*b, "mac") for b in MAC_BUILDS])
    chosen = [b for b in builds if not argv or b[0] in argv]
    passed = failed = 0
    for build in chosen:
        if run_build(runner, *build):
            passed += 1
        else:
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""baser.conformance: a catalogue of named cases, each with the clause it checks, that
drives a DUT through an adapter of its signals and judges everything it says (frames and
their bad flags, error pulses, block lock, hi_ber, link status, link fault, counters)
against the model and the standard (docs/conformance.md).

    from baser.conformance import example_dut, run
    await run(dut, example_dut(dut), report_dir="conformance")

Needs cocotb (1.9 or 2.x) when :func:`run` is called; importing it does not.
"""

import json
import os
import time

from .. import _baser
from . import _judge
from ._adapter import Adapter, example_dut, taxi, verilog_ethernet
from ._cases import BER_WINDOW_BLOCKS, CASES, Case, cases_at, standard_ber_window  # noqa: F401
from ._report import write_html, write_junit

__all__ = ["Adapter", "CASES", "Case", "Result", "cases_at", "example_dut", "load_waivers", "run",
           "standard_ber_window", "taxi", "verilog_ethernet", "waivers"]

WAIVERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "waivers")


def waivers(name, top="mac+phy"):
    """The path of the waiver file shipped for a ready adapter's RTL: ``"verilog-ethernet"``
    or ``"taxi"`` (each waiver names the case and the RTL's documented deviation from IEEE
    802.3 that makes it fail); ``top`` the adapter's (``adapter.top``): a PHY-only top has its
    own file (``"verilog-ethernet-phy"``, ``"taxi-phy"``: its XGMII frames meet the model's
    MAC, so the MAC's deviations are not its), and so has a MAC-only top (``"...-mac"``: its
    own receive path, no PCS): ``run(dut, a, waivers=waivers("taxi", a.top))``."""
    if top not in ("mac+phy", "phy", "mac"):
        raise ValueError(f"waivers: top `{top}`: expected mac+phy, phy or mac")
    if top != "mac+phy" and not name.endswith(("-phy", "-mac")):
        name = f"{name}-{top}"
    path = os.path.join(WAIVERS, f"{name}.txt")
    if not os.path.exists(path):
        known = sorted(f[:-4] for f in os.listdir(WAIVERS) if f.endswith(".txt"))
        raise ValueError(f"no waiver file `{name}`: expected one of {known}")
    return path


class Result:
    """One case's outcome: ``verdict`` pass, fail, waived (failed, as a waiver expects) or
    skipped; ``divergences`` in the model's words, the first one first."""

    def __init__(self, case, verdict, divergences, seconds, clocks=0, reason=""):
        self.case = case
        self.verdict = verdict
        self.divergences = divergences
        self.seconds = seconds
        self.clocks = clocks
        self.reason = reason

    @property
    def message(self):
        if self.verdict == "skipped":
            return self.reason
        first = self.divergences[0] if self.divergences else "no divergence"
        more = f" (+{len(self.divergences) - 1} more)" if len(self.divergences) > 1 else ""
        waived = f"; waived: {self.reason}" if self.verdict == "waived" else ""
        return first + more + waived

    def to_json(self):
        c = self.case
        return {"name": c.name, "clause": c.clause, "title": c.title, "verdict": self.verdict,
                "seconds": round(self.seconds, 2), "clocks": self.clocks,
                "divergences": self.divergences, "reason": self.reason}


def load_waivers(path):
    """A waiver file: one ``case-name: reason`` a line (``#`` comments, blank lines). A
    waived case that fails is reported ``waived``; one that passes fails the run (the
    waiver is stale). Unknown case names are an error."""
    waivers = {}
    known = {c.name for c in CASES}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            name, sep, reason = text.partition(":")
            name = name.strip()
            if not sep or not reason.strip():
                raise ValueError(f"{path}:{number}: expected `case-name: reason`, got `{text}`")
            if name not in known:
                raise ValueError(f"{path}:{number}: no case `{name}` in the catalogue")
            waivers[name] = reason.strip()
    return waivers


async def _run_case(bench, adapter, case):
    from . import _bench  # noqa: F401  (cocotb needed from here on)

    if case.pattern:
        run = case.pattern_run(adapter)
        if case.kind == "rx":
            counted, clocks = await bench.run_rx_pattern(run)
            div = _baser.conformance_pattern_verdict(case.name, inverted=adapter.prbs31_inverted,
                                                     counted=counted)
        else:
            line, clocks = await bench.run_tx_pattern(run)
            div = _baser.conformance_pattern_verdict(case.name, inverted=adapter.prbs31_inverted,
                                                     line=line)
        return div, clocks
    if case.kind == "rx" and adapter.mac_only:
        # a MAC-only top: the line as the model's PCS receiver hands it to its RS
        words = _baser.conformance_xgmii(case.name, max_frame_length=adapter.max_frame_length,
                                         ber_window_blocks=adapter.ber_window_blocks,
                                         rate=adapter.rate)
        obs = await bench.run_rx_xgmii(words)
    elif case.kind == "rx":
        lb = case.build(adapter)
        obs = await bench.run_rx(lb.blocks, lb.slips)
    if case.kind == "rx":
        said = (obs.dut_frames, obs.pulses, obs.status, obs.counters)
        div = _baser.conformance_verdict(
            case.name, said, max_frame_length=adapter.max_frame_length,
            ber_window_blocks=adapter.ber_window_blocks, has_frames=adapter.has(["rx_axis"]) is None,
            fcs_stripped=adapter.rx_fcs_stripped, pulse_roles=list(adapter.pulses),
            rate=adapter.rate)
        return div, obs.clocks
    frames, aborts = case.build(adapter)
    receive = case.receive_line()
    words = None
    if receive and adapter.mac_only:  # its XGMII input: the line as the model's PCS decodes it
        words = _baser.conformance_xgmii(case.name, max_frame_length=adapter.max_frame_length,
                                         ber_window_blocks=adapter.ber_window_blocks,
                                         rate=adapter.rate)
    lead = 200
    obs = await bench.run_tx(frames, aborts, lead=lead, receive=receive, receive_xgmii=words)
    return _judge.tx(obs, adapter, frames, aborts, receive, lead), obs.clocks


async def run(dut, adapter=None, *, cases=None, waivers=None, report_dir=None, log=None,
              raise_on_fail=True):
    """Runs the catalogue at the adapter's ``rate`` (or the cases named in ``cases``; one of
    another rate is reported skipped) against ``dut``: each case resets the DUT, drives its
    stimulus and judges it at the DUT's rate and BER timer. ``waivers``: a dict or a waiver
    file's path. Writes ``conformance.xml`` (JUnit), ``conformance.json`` and
    ``conformance.html`` to ``report_dir`` (default: ``$BASER_CONFORMANCE_DIR`` or
    ``.``). Raises ``AssertionError`` naming the failed cases unless ``raise_on_fail`` is
    false; returns the results."""
    from ._bench import Bench

    adapter = adapter or example_dut(dut)
    if isinstance(waivers, str):
        waivers = load_waivers(waivers)
    waivers = waivers or {}
    wanted = list(cases) if cases else None
    at_rate = cases_at(adapter.rate)  # an unknown rate raises
    chosen = at_rate if wanted is None else [c for c in CASES if c.name in wanted]
    if wanted:
        unknown = sorted(set(wanted) - {c.name for c in CASES})
        if unknown:
            raise ValueError(f"no case(s) {unknown} in the catalogue")
    # the engine's reasons not to run a case (bad settings, a window of 0, raise here)
    skips = {c.name: c.skip(adapter) for c in chosen}
    say = log.info if log is not None else print
    bench = Bench(adapter)
    results = []
    for case in chosen:
        lacking = adapter.has(case.needs)
        why = f"the adapter has no {lacking}" if lacking else skips[case.name]
        if lacking and lacking.startswith("prbs31.") and adapter.prbs31_missing:
            why += f": {adapter.prbs31_missing}"
        if not why and case.kind == "tx" and not case.pattern and adapter.tx_xgmii is not None \
                and not adapter.mac_only and case.build(adapter)[1]:
            why = "it aborts a frame (the MAC's tuser): an XGMII input has no abort"
        if not why and case.kind == "tx" and adapter.tx_xgmii is not None \
                and not adapter.mac_only and case.receive_line():
            why = "it judges the RS's reaction to received faults: a PHY-only top has no RS"
        if why:
            results.append(Result(case, "skipped", [], 0.0, reason=why))
            say(f"{case.name:24} skipped: {why}")
            continue
        start = time.monotonic()
        await bench.reset()
        div, clocks = await _run_case(bench, adapter, case)
        verdict = "fail" if div else "pass"
        reason = ""
        if case.name in waivers:
            reason = waivers[case.name]
            if div:
                verdict = "waived"
            else:
                verdict, div = "fail", [f"waived ({reason}) but passed: remove the waiver"]
        r = Result(case, verdict, div, time.monotonic() - start, clocks, reason)
        results.append(r)
        say(f"{case.name:24} {verdict:7} {r.seconds:6.1f} s {clocks:6} clocks  {case.clause}"
            + "".join(f"\n    {d}" for d in r.divergences[:6]))
    _write(results, report_dir, adapter, _coverage(results, adapter))
    failed = [r.case.name for r in results if r.verdict == "fail"]
    if failed and raise_on_fail:
        first = next(r for r in results if r.verdict == "fail")
        raise AssertionError(f"conformance: {len(failed)} case(s) failed: {', '.join(failed)}; "
                             f"first: {first.case.name}: {first.message}")
    return results


def _coverage(results, adapter):
    """The engine's functional coverage bins (``baser coverage``) of the stimuli the run drove
    (every case not skipped), merged: ``{"percent", "groups": [{"name", "what", "covered",
    "bins", "holes"}]}``."""
    ran = [r.case.name for r in results if r.verdict != "skipped"]
    cov = json.loads(_baser.conformance_coverage(
        ran, max_frame_length=adapter.max_frame_length,
        ber_window_blocks=adapter.ber_window_blocks, rate=adapter.rate))
    groups = [{"name": g["name"], "what": g["what"],
               "covered": sum(b["hits"] > 0 for b in g["bins"]), "bins": len(g["bins"]),
               "holes": [b["name"] for b in g["bins"] if b["hits"] == 0]}
              for g in cov["groups"]]
    covered, total = sum(g["covered"] for g in groups), sum(g["bins"] for g in groups)
    return {"percent": round(100.0 * covered / total, 1) if total else 100.0, "groups": groups}


def _write(results, report_dir, adapter, coverage=None):
    folder = report_dir or os.environ.get("BASER_CONFORMANCE_DIR") or "."
    os.makedirs(folder, exist_ok=True)
    settings = {"rate": adapter.rate, "ber_window_blocks": adapter.ber_window_blocks,
                "max_frame_length": adapter.max_frame_length}
    write_junit(os.path.join(folder, "conformance.xml"), results)
    write_html(os.path.join(folder, "conformance.html"), results, settings, coverage)
    with open(os.path.join(folder, "conformance.json"), "w") as f:
        json.dump({**settings, "cases": [r.to_json() for r in results], "coverage": coverage},
                  f, indent=1)

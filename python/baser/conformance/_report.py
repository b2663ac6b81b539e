"""The run's reports: JUnit XML (one test case per catalogue case, the first divergence as
the failure message) and a self-contained HTML page (the table of cases, their clauses,
verdicts, seconds, every divergence; the clauses the run reached; the engine's functional
coverage bins of the stimuli driven)."""

import html
import xml.etree.ElementTree as ET


def write_junit(path, results):
    suite = ET.Element("testsuite", name="baser.conformance", tests=str(len(results)),
                       failures=str(sum(r.verdict == "fail" for r in results)),
                       skipped=str(sum(r.verdict in ("skipped", "waived") for r in results)),
                       time=f"{sum(r.seconds for r in results):.2f}")
    for r in results:
        tc = ET.SubElement(suite, "testcase", classname=f"conformance.{r.case.kind}",
                           name=r.case.name, time=f"{r.seconds:.2f}")
        if r.verdict == "fail":
            fail = ET.SubElement(tc, "failure", message=r.message)
            fail.text = "\n".join(r.divergences)
        elif r.verdict in ("skipped", "waived"):
            ET.SubElement(tc, "skipped", message=r.message)
        ET.SubElement(tc, "system-out").text = f"{r.case.clause}: {r.case.title}"
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)


COLOURS = {"pass": "#cfc", "fail": "#fcc", "waived": "#ffc", "skipped": "#eee"}


def write_html(path, results, settings=None, coverage=None):
    rows = []
    for r in results:
        c = r.case
        div = "".join(f"<li>{html.escape(d)}</li>" for d in r.divergences)
        note = html.escape(r.reason) if r.reason else ""
        rows.append(
            f"<tr style='background:{COLOURS[r.verdict]}'><td>{html.escape(c.name)}</td>"
            f"<td>{html.escape(c.clause)}</td><td>{html.escape(c.title)}</td>"
            f"<td>{r.verdict}</td><td>{r.seconds:.1f}</td><td>{r.clocks}</td>"
            f"<td>{note}<ul>{div}</ul></td></tr>"
        )
    reached = {}
    for r in results:
        if r.verdict != "skipped":
            for clause in r.case.clause.split(", "):
                reached.setdefault(clause, []).append(r.verdict)
    cov = "".join(
        f"<tr><td>{html.escape(k)}</td><td>{len(v)}</td><td>{v.count('pass')}</td></tr>"
        for k, v in sorted(reached.items())
    )
    counts = {v: sum(r.verdict == v for r in results) for v in COLOURS}
    with open(path, "w") as f:
        f.write(
            "<!doctype html><meta charset=utf-8><title>baser conformance</title>"
            "<style>body{font-family:sans-serif}td,th{border:1px solid #999;padding:3px;"
            "vertical-align:top}table{border-collapse:collapse}</style>"
            f"<h1>baser conformance</h1><p>{html.escape(_settings(settings))}</p><p>{counts}</p>"
            "<table><tr><th>case</th><th>clause</th><th>what</th><th>verdict</th>"
            "<th>s</th><th>clocks</th><th>divergences</th></tr>" + "".join(rows) + "</table>"
            "<h2>Clauses reached</h2><table><tr><th>clause</th><th>cases</th><th>passed</th></tr>"
            + cov + "</table>" + _coverage_html(coverage)
        )


def _settings(settings):
    """The DUT's settings the run judged at: rate, BER timer, largest frame."""
    if not settings:
        return ""
    return (f"rate {settings['rate']}, BER timer {settings['ber_window_blocks']} blocks, "
            f"largest frame {settings['max_frame_length']} octets")


def _coverage_html(coverage):
    """The engine's functional coverage of the stimuli the run drove: per group of ``baser
    coverage``'s plan, bins hit of bins, and the holes."""
    if not coverage:
        return ""
    rows = "".join(
        f"<tr><td>{html.escape(g['name'])}</td><td>{html.escape(g['what'])}</td>"
        f"<td>{g['covered']} / {g['bins']}</td><td>{html.escape(', '.join(g['holes']))}</td></tr>"
        for g in coverage["groups"]
    )
    return (f"<h2>Functional coverage of the stimuli ({coverage['percent']} % of the engine's "
            "bins, <code>baser coverage</code>)</h2><table><tr><th>group</th><th>what</th>"
            "<th>bins hit</th><th>holes</th></tr>" + rows + "</table>")

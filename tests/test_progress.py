"""The text progress bar: redrawn in place on a terminal, a line per tenth in a log."""

from __future__ import annotations

import io

from titop_lpv.progress import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_log_stream_gets_a_line_per_tenth_and_the_end():
    log = io.StringIO()
    bar = Progress(100, "sweep", stream=log)
    for done in range(1, 101):
        bar(done)
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue()
    # the first step (the run has started), then 10/100, 20/100, ..., 100/100
    assert [ln.split()[1] for ln in lines] == ["1/100"] + [f"{10 * k}/100" for k in range(1, 11)]


def test_terminal_redraws_in_place_and_ends_the_line():
    term = _Terminal()
    bar = Progress(5, "trim", stream=term)
    for done in range(1, 6):
        bar(done)
    text = term.getvalue()
    assert text.count("\r") == 5 and text.endswith("\n") and text.count("\n") == 1
    assert "trim 5/5" in text


def test_short_runs_in_a_log_still_report_every_step_and_the_end():
    log = io.StringIO()
    bar = Progress(3, "x", stream=log)
    for done in (1, 2, 3):
        bar(done)
    assert [ln.split()[1] for ln in log.getvalue().splitlines()] == ["1/3", "2/3", "3/3"]

"""The progress bar (tqdm): redrawn in place on a terminal and closed at the end; on a log
stream a bounded number of plain lines, the last one the end of the work."""

from __future__ import annotations

import io

from titop_lpv.progress import LOG_LINES, Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_log_stream_gets_a_bounded_number_of_lines_ending_with_the_total():
    log = io.StringIO()
    bar = Progress(1000, "sweep", stream=log)
    for done in range(1, 1001):
        bar(done)
    text = log.getvalue()
    lines = text.splitlines()
    assert "\r" not in text and text.endswith("\n")
    # about one line per 1/LOG_LINES of the work, the end: never a line per item
    assert 3 <= len(lines) <= LOG_LINES + 1, lines
    assert all(line.startswith("sweep:") for line in lines)
    assert "1000/1000" in lines[-1] and "100%" in lines[-1]
    assert not any(" 0/1000 " in line for line in lines)  # none before the first item


def test_terminal_redraws_in_place_and_ends_the_line():
    term = _Terminal()
    bar = Progress(5, "trim", stream=term)
    for done in range(1, 6):
        bar(done)
    text = term.getvalue()
    assert "\r" in text and text.endswith("\n") and text.count("\n") == 1
    assert "trim: 100%" in text and "5/5" in text
    bar(5)  # a call after the end writes nothing more
    assert term.getvalue() == text


def test_short_runs_in_a_log_report_every_step_and_the_total_may_change():
    log = io.StringIO()
    bar = Progress(3, "x", stream=log)
    for done in (1, 2, 3):
        bar(done)
    counts = [line.split("|")[2].split()[0] for line in log.getvalue().splitlines()]
    assert counts == ["1/3", "2/3", "3/3"]
    log = io.StringIO()
    bar = Progress(4, "y", stream=log)
    bar(2, 8)  # the caller learns the total late
    bar(8, 8)
    assert "8/8" in log.getvalue().splitlines()[-1]

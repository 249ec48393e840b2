"""Layer 8: the ``titop-lpv`` command line, a client of the public API.

:mod:`~titop_lpv.cli.main` defines the commands, :mod:`~titop_lpv.cli.args` parses command-line
values, :mod:`~titop_lpv.cli.report` prints verdicts and writes files.
``python -m titop_lpv`` runs the same command.
"""

"""``python -m titop_lpv``: the ``titop-lpv`` command line."""

from .cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())

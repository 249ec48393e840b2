"""pytest configuration shared by the tests (tests/) and the doctests (titop_lpv/)."""

import os

# The suite compiles the dynamics kernel in-process at its first use, so that every test sees
# one route from start to end; the default policy (numpy route while a background process
# compiles) is tested on its own in tests/test_kernel_ready.py.
os.environ.setdefault("TITOP_LPV_COMPILE", "wait")

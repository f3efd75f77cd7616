"""sim/tests/test_long_md.py with digestion on (LONG_MD_DIGEST=1): market data longer than the firmware's receive
buffer, which the hardware digests whole, and whose first bytes firmware may have kept before the hardware took it
(that test's header has the checks)."""
import os
import runpy
import sys

os.environ["LONG_MD_DIGEST"] = "1"
sys.argv[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_long_md.py")
runpy.run_path(sys.argv[0], run_name="__main__")

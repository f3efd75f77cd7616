"""Market-data digestion on the whole SoC (docs/DESIGN.md "Digesting market data"): sim/tests/accept_burst.py's burst
with `offload digest on` before it, 2,000 W by default (BURST_MESSAGES), issue 15's "Done when" burst. Besides that test's checks (session kept, the
four hardware stops fired once each and filled, no Reject, ResendRequest, gap or early Logout, TestRequests answered
within HeartBtInt at the boards' clock), every W of the burst is counted exactly once, by the hardware (the `offload`
command's digest counters) or by firmware (md_msgs), the hardware takes at least 98 % of them (a floor: accept_burst.py says why), and neither TCP nor the
session refused a descriptor."""
import os
import runpy
import sys

os.environ["BURST_DIGEST"] = "1"
sys.argv[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "accept_burst.py")
runpy.run_path(sys.argv[0], run_name="__main__")

"""Host tests of the QuickFIX-style settings reader behind `tfctl apply`."""
import pytest

from tfctl.settings import SettingsError, read_settings, session_options

CFG = """
# an initiator's settings, as a QuickFIX user has them
[DEFAULT]
ConnectionType=initiator
FileStorePath=store
HeartBtInt=30
SocketConnectHost=10.77.0.1
StartTime=00:00:00

[SESSION]
BeginString=FIX.4.4
SenderCompID=TFISH1
TargetCompID=EXCH
SocketConnectPort=9876
HeartBtInt=5
Symbols=MSFT,AAPL
PriceDecimals=4
"""


def test_session_over_default():
    assert session_options(CFG) == {"heartbeat": "5", "host": "10.77.0.1", "sender": "TFISH1", "target": "EXCH",
                                    "port": "9876", "symbols": "MSFT,AAPL", "decimals": "4"}


def test_several_sessions_need_a_target(tmp_path):
    two = CFG + "\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=TFISH2\nTargetCompID=OTHER\nSocketConnectPort=9877\n"
    with pytest.raises(SettingsError, match="--target"):
        session_options(two)
    assert session_options(two, target="OTHER")["port"] == "9877"
    path = tmp_path / "dir with spaces" / "session.cfg"
    path.parent.mkdir()
    path.write_text(two)
    assert read_settings(str(path), target="EXCH")["sender"] == "TFISH1"


def test_refusals():
    with pytest.raises(SettingsError):
        session_options("SenderCompID=X\n")  # outside a section
    with pytest.raises(SettingsError, match="FIX.4.4"):
        session_options("[SESSION]\nBeginString=FIX.4.2\nSenderCompID=A\nTargetCompID=B\n")
    with pytest.raises(SettingsError):
        session_options("[DEFAULT]\n")  # no session at all: {} has nothing to apply -> no session

"""tfctl: the host side of Triggerfish's machine protocol (docs/PROTOCOL.md).

    from tfctl import Appliance
    with Appliance("socket://127.0.0.1:5555") as tf:     # or "/dev/ttyUSB0" for a board
        tf.session.configure(sender="TFISH1", target="EXCH", host="10.77.0.1", port=9876)
        tf.session.start()
        n = tf.stops.arm("buy", "MSFT", 100, stop="100.10", limit="100.40")
        for ev in tf.events(timeout=60):
            print(ev.name, ev.data)
"""
from .protocol import Event, ProtocolError, Reply, PROTOCOL_VERSION
from .appliance import Appliance, ApplianceError, ConnectionLost, Request
from .settings import read_settings, session_options, SettingsError

__all__ = ["Appliance", "ApplianceError", "ConnectionLost", "Request", "Event", "Reply", "ProtocolError", "PROTOCOL_VERSION",
           "read_settings", "session_options", "SettingsError"]

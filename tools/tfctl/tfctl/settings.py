"""QuickFIX-style settings files for `tfctl apply`: the file a user already has for their own engine.

Read: [DEFAULT] and [SESSION] sections of key=value lines ('#' comments). From the chosen session (merged over
DEFAULT) the appliance takes SenderCompID, TargetCompID, HeartBtInt, SocketConnectHost, SocketConnectPort, and
the Triggerfish keys Symbols (comma separated), PriceDecimals and Account when present. SocketConnectHost is
the exchange's address as the appliance reaches it (an IPv4 address; with the simulation on libslirp the host
is 10.77.0.1). Other keys (FileStorePath, StartTime, ...) are QuickFIX's own and are ignored.
"""
import re

KEYS = {  # settings key (lower case) -> session option
    "sendercompid": "sender", "targetcompid": "target", "heartbtint": "heartbeat",
    "socketconnecthost": "host", "socketconnectport": "port", "symbols": "symbols",
    "pricedecimals": "decimals", "account": "account",
}


class SettingsError(ValueError):
    pass


def parse(text):
    """[(section name, {key: value})] in file order."""
    sections, cur = [], None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        m = re.match(r"^\[([^\]]+)\]$", line)
        if m:
            cur = {}
            sections.append((m.group(1).strip().upper(), cur))
            continue
        if "=" not in line or cur is None:
            raise SettingsError(f"line {n}: {raw!r} is neither [SECTION] nor key=value in a section")
        k, v = line.split("=", 1)
        cur[k.strip()] = v.strip()
    return sections


def read_settings(path, target=None):
    """The session options of a settings file (see session_options)."""
    with open(path, encoding="utf-8") as f:
        return session_options(f.read(), target)


def session_options(text, target=None):
    """The session options of one session: the only [SESSION], or the one whose TargetCompID is `target`."""
    sections = parse(text)
    default = {}
    for name, kv in sections:
        if name == "DEFAULT":
            default.update(kv)
    sessions = [dict(default, **kv) for name, kv in sections if name == "SESSION"]
    if not sessions:
        sessions = [default] if default else []
    if target:
        sessions = [s for s in sessions if s.get("TargetCompID") == target]
    if len(sessions) != 1:
        raise SettingsError(f"{len(sessions)} sessions match; name one with --target" if sessions
                            else "no [SESSION] (or none with that TargetCompID)")
    opts = {}
    for k, v in sessions[0].items():
        opt = KEYS.get(k.lower())
        if opt:
            opts[opt] = v
    if "BeginString" in sessions[0] and sessions[0]["BeginString"] != "FIX.4.4":
        raise SettingsError(f"BeginString {sessions[0]['BeginString']}: the appliance speaks FIX.4.4")
    return opts

"""Where `python app.py` can be reached: the public URL that QR codes, PDFs and calendar links carry.

A demo started with `--host 0.0.0.0` listens on every interface, but a QR code for 0.0.0.0 or
127.0.0.1 opens nothing on a phone: the public URL is then the machine's address on its network.
"""
import ipaddress
import socket

# Hosts that mean "every interface": nobody can open them, so the public URL names the LAN address.
WILDCARD_HOSTS = {"", "0.0.0.0", "::", "[::]", "*"}  # nosec B104 (names the wildcard, binds nothing)

# TEST-NET-1 (RFC 5737): a UDP "connect" to it sends nothing, it only makes the system pick the
# interface and source address it would route through, so the LAN address is found offline too.
_PROBE = ("192.0.2.1", 9)


def lan_address() -> str | None:
    """This machine's address on its local network, or None when it has none but loopback."""
    candidates = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(_PROBE)
            candidates.append(probe.getsockname()[0])
    except OSError:  # no route at all (no network interface up)
        pass
    try:
        candidates += socket.gethostbyname_ex(socket.gethostname())[2]
    except OSError:
        pass
    for address in candidates:
        ip = ipaddress.ip_address(address)
        if not (ip.is_loopback or ip.is_unspecified or ip.is_link_local):
            return address
    return None


def served_url(host: str, port: int, lan: str | None) -> str:
    """The URL people open for a server bound to `host`:`port`: the LAN address `lan` for a wildcard host."""
    if host in WILDCARD_HOSTS:
        host = lan or "127.0.0.1"
    if ":" in host and not host.startswith("["):  # a bare IPv6 address
        host = f"[{host}]"
    return f"http://{host}:{port}"

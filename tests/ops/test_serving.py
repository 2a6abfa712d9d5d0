"""Where `python app.py` can be reached: the URL for its host and port, and the machine's LAN address."""
import ipaddress
import socket

import pytest

from inspection.ops.serving import lan_address, served_url


@pytest.mark.parametrize("host, port, lan, url", [
    ("127.0.0.1", 5000, None, "http://127.0.0.1:5000"),
    ("127.0.0.1", 5101, None, "http://127.0.0.1:5101"),
    ("0.0.0.0", 8000, "192.168.1.20", "http://192.168.1.20:8000"),
    ("::", 8000, "10.0.0.7", "http://10.0.0.7:8000"),
    ("0.0.0.0", 8000, None, "http://127.0.0.1:8000"),  # no network: at least this machine opens it
    ("192.168.1.20", 5000, None, "http://192.168.1.20:5000"),
    ("localhost", 5000, None, "http://localhost:5000"),
    ("fe80::1", 5000, None, "http://[fe80::1]:5000"),
])
def test_the_served_url_names_an_address_people_can_open(host, port, lan, url):
    assert served_url(host, port, lan) == url


def test_the_lan_address_is_found_without_sending_anything_and_is_never_loopback():
    address = lan_address()
    assert address is None or not ipaddress.ip_address(address).is_loopback


def test_the_lan_address_falls_back_to_the_host_name_when_no_route_exists(monkeypatch):
    class NoRoute:
        def __init__(self, *args):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def connect(self, address):
            raise OSError("Network is unreachable")

    monkeypatch.setattr(socket, "socket", NoRoute)
    monkeypatch.setattr(socket, "gethostbyname_ex", lambda name: (name, [], ["127.0.1.1", "10.1.2.3"]))
    assert lan_address() == "10.1.2.3"
    monkeypatch.setattr(socket, "gethostbyname_ex", lambda name: (name, [], ["127.0.1.1"]))
    assert lan_address() is None

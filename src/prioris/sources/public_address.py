"""Whether a URL the server is asked to fetch leads to the public internet (SSRF guard).

Providers' URLs are the settings'; an alert's ``feed:URL`` is anyone's with an account. In
a shared library that would let a person make the server read what only the server can
reach: its own loopback services, the lab's private network, a cloud's metadata address
(169.254.169.254). :class:`PublicAddresses` resolves the URL's host (the resolver is
injected: the system's ``getaddrinfo`` by default) and refuses it when ANY address it
resolves to is not globally routable: loopback, private (10/8, 172.16/12, 192.168/16,
fc00::/7), link-local, shared (100.64/10), multicast, reserved or unspecified, IPv4 mapped
into IPv6 included. The feed source asks before its first request and before following
each redirect. :meth:`PublicAddresses.check_peer` then looks at the address the
connection actually reached, before the answer's body is read
(:class:`~prioris.sources.http.ProviderHttp`'s ``peer_check``): a name whose DNS answer
changed between the check and the connection (DNS rebinding) gets its request sent but
its answer refused, so nothing the server reached privately is read back. Through an HTTP
proxy the peer is the proxy, which must then be public too (or the admin setting on).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from prioris.errors import ForbiddenError

if TYPE_CHECKING:
    import httpx

Resolver = Callable[..., Sequence[Any]]
SETTING = "PRIORIS_MCP_ALLOW_PRIVATE_FEEDS"


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


class PublicAddresses:
    """Refuses URLs whose host is, or resolves to, a non-public address (module docstring)."""

    def __init__(self, resolve: Resolver = socket.getaddrinfo) -> None:
        self.resolve = resolve

    def addresses(self, host: str, port: int) -> list[str]:
        """The addresses ``host`` stands for (itself when it is one)."""
        try:
            return [str(ipaddress.ip_address(host.strip("[]")))]
        except ValueError:
            pass
        try:
            found = self.resolve(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            raise ForbiddenError(f"the feed's host {host!r} does not resolve ({exc})") from None
        return list(dict.fromkeys(str(info[4][0]) for info in found))

    def check(self, url: str) -> None:
        """Nothing when ``url`` leads only to public addresses; ``forbidden`` otherwise,
        naming the host and the setting that allows it."""
        parts = urlsplit(url)
        host = parts.hostname
        if not host:
            raise ForbiddenError(f"the feed URL {url!r} names no host")
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise ForbiddenError(f"the feed URL {url!r} has an invalid port") from None
        addresses = self.addresses(host, port)
        private = [a for a in addresses if not _is_public(a)]
        if private or not addresses:
            raise ForbiddenError(
                f"the feed at {host} leads to a non-public address ({', '.join(private)}): "
                f"in a shared library feeds reach only the public internet unless an admin "
                f"sets {SETTING}=true"
            )

    def check_peer(self, response: httpx.Response) -> None:
        """Nothing when the connection of ``response`` reached a public address (or has
        none: an in-memory transport); ``forbidden`` otherwise, before its body is read."""
        stream = response.extensions.get("network_stream")
        peer = stream.get_extra_info("server_addr") if stream is not None else None
        if not peer:
            return
        address = str(peer[0])
        if not _is_public(address):
            host = response.request.url.host
            raise ForbiddenError(
                f"the feed at {host} was reached at a non-public address ({address}): in a "
                f"shared library feeds reach only the public internet unless an admin sets "
                f"{SETTING}=true"
            )

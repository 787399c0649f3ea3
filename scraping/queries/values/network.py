"""IP and MAC addresses in the forms logs, routers and support tickets show them.

IPv4 public, private and in the documentation ranges; IPv6 (global, 2001:db8::/32,
fd00::/8) compressed (2001:db8::8a2e:370:7334), in full
(2001:0db8:0000:...) or upper case; MAC addresses with colons, dashes or Cisco dots,
upper or lower case. A port is written by the template, outside the value.
"""

from __future__ import annotations

import ipaddress

from scraping.queries.values.identity import Identity


def ip_address(person: Identity) -> str:
    fake, roll = person.fake, person.random.random()
    if roll < 0.3:
        return fake.ipv4_public()
    if roll < 0.45:
        return fake.ipv4_private()
    if roll < 0.6:  # the documentation ranges of RFC 5737, common in manuals and examples
        network = person.random.choice(("192.0.2", "198.51.100", "203.0.113"))
        return f"{network}.{person.random.randint(1, 254)}"
    # Global unicast with runs of zero groups, as real addresses have (so "::" appears).
    first = person.random.choice(
        ((0x2001, 0x0DB8), (0xFD00 + person.random.randint(0, 0xFF), None), (None, None))
    )
    groups = [person.random.randint(0x2000, 0x3FFF)] + [
        0 if person.random.random() < 0.35 else person.random.randint(1, 0xFFFF) for _ in range(7)
    ]
    # Global unicast, the documentation prefix 2001:db8::/32 or a unique local fd00::/8.
    groups[:2] = [g if g is not None else groups[i] for i, g in enumerate(first)]
    address = ipaddress.IPv6Address(":".join(f"{group:x}" for group in groups))
    if roll < 0.8:
        return address.compressed
    if roll < 0.92:
        return address.exploded
    return address.compressed.upper()


def mac_address(person: Identity) -> str:
    octets = [f"{person.random.randint(0, 255):02x}" for _ in range(6)]
    roll = person.random.random()
    if roll < 0.4:
        text = ":".join(octets)
    elif roll < 0.7:
        text = "-".join(octets)
    else:
        joined = "".join(octets)
        text = ".".join(joined[i : i + 4] for i in range(0, 12, 4))
    return text.upper() if person.random.random() < 0.5 else text

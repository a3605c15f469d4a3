#!/usr/bin/env python3
"""A hostile multicast DNS responder for share's tests: it announces `_share._tcp` services with
whatever records it is told to, without asking anyone (as any machine on a LAN can).

Run it inside a simulated host (Tests/Hosts/lan.sh run HOST python3 fake-responder.py ...), whose
own avahi-daemon should be stopped first (both would want port 5353).

  fake-responder.py --from ADDRESS --name NAME [--host HOST] [--port N] [--address A]...
                    [--txt k=v]... [--count N] [--flap SECONDS] [--for SECONDS]

--from is the simulated host's own IPv4 address: the packets leave through its interface.

--count N announces N services NAME-0000 ... ; --flap S announces and withdraws them every S
seconds (goodbye packets, TTL 0); otherwise they are announced every second. It prints
"announcing" once the first packet is out, and stops after --for seconds (default: until
SIGTERM); either way it says goodbye (TTL 0) before it exits.
"""
import argparse
import ipaddress
import signal
import socket
import struct
import sys
import time

MDNS = ("224.0.0.251", 5353)


def name(text):
    out = b""
    for label in text.rstrip(".").split("."):
        raw = label.encode()
        out += bytes([len(raw)]) + raw
    return out + b"\0"


def record(owner, rtype, rdata, ttl, flush):
    klass = 0x8001 if flush else 0x0001
    return name(owner) + struct.pack(">HHIH", rtype, klass, ttl, len(rdata)) + rdata


def packet(services, ttl):
    answers = []
    for svc in services:
        instance = "%s._share._tcp.local" % svc["name"]
        answers.append(record("_share._tcp.local", 12, name(instance), ttl, False))
        answers.append(record(instance, 33, struct.pack(">HHH", 0, 0, svc["port"]) + name(svc["host"] + ".local"), ttl, True))
        txt = b"".join(bytes([len(item)]) + item for item in (t.encode() for t in svc["txt"])) or b"\0"
        answers.append(record(instance, 16, txt, ttl, True))
        for address in svc["addresses"]:
            parsed = ipaddress.ip_address(address)
            rtype = 1 if parsed.version == 4 else 28
            answers.append(record(svc["host"] + ".local", rtype, parsed.packed, ttl, True))
    header = struct.pack(">HHHHHH", 0, 0x8400, 0, len(answers), 0, 0)
    return header + b"".join(answers)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--from", dest="source", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--host", default="fake")
    parser.add_argument("--port", type=int, default=47321)
    parser.add_argument("--address", action="append", default=[])
    parser.add_argument("--txt", action="append", default=[])
    parser.add_argument("--count", type=int, default=0)
    parser.add_argument("--flap", type=float, default=0)
    parser.add_argument("--for", dest="duration", type=float, default=0)
    options = parser.parse_args()

    names = ["%s-%04d" % (options.name, n) for n in range(options.count)] if options.count else [options.name]
    services = [
        {"name": n, "host": options.host + (n[len(options.name):] if options.count else ""), "port": options.port,
         "addresses": options.address, "txt": options.txt}
        for n in names
    ]
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(options.source))
    sock.bind(("0.0.0.0", 5353))

    def send(ttl):
        # Keep each packet well under the link's MTU: a few services at a time.
        for start in range(0, len(services), 4):
            sock.sendto(packet(services[start:start + 4], ttl), MDNS)

    def goodbye(*_):
        send(0)
        sys.exit(0)

    signal.signal(signal.SIGTERM, goodbye)
    started = time.monotonic()
    send(120)
    print("announcing", flush=True)
    up = True
    while not options.duration or time.monotonic() - started < options.duration:
        if options.flap:
            time.sleep(options.flap)
            up = not up
            send(120 if up else 0)
        else:
            time.sleep(1)
            send(120)
    send(0)


if __name__ == "__main__":
    sys.exit(main())

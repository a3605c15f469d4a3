#!/usr/bin/env python3
"""A connection flood against a share receiver on loopback, for share's admission tests
(docs/SECURITY.md, "Admission"): one attacker with many addresses holding every connection slot it
can, as cheaply as it can.

  flood.py --port PORT [--sources 60] [--per-source 5] [--drip 8] [--for SECONDS]

--sources N idle clients' addresses 127.0.1.1 ... 127.0.1.N, each opening --per-source TCP
connections that send nothing; --drip M clients from 127.0.2.1 ... 127.0.2.M that start a TLS record
and then send one byte every half second. Every connection the receiver closes is opened again at
once. Prints "holding N" once every connection was opened the first time, then, at the end (after
--for seconds, default 60, or SIGTERM), "opened N closed M" and exits.
"""
import argparse
import selectors
import signal
import socket
import sys
import time

# A TLS handshake record header announcing 512 bytes, which then come one at a time.
TLS_START = bytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--sources", type=int, default=60)
    parser.add_argument("--per-source", type=int, default=5)
    parser.add_argument("--drip", type=int, default=8)
    parser.add_argument("--for", dest="duration", type=float, default=60)
    options = parser.parse_args()

    selector = selectors.DefaultSelector()
    state = {"opened": 0, "closed": 0, "stop": False}

    def open_one(source, drip):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((source, 0))
        sock.setblocking(False)
        try:
            sock.connect(("127.0.0.1", options.port))
        except BlockingIOError:
            pass
        state["opened"] += 1
        selector.register(sock, selectors.EVENT_READ, {"source": source, "drip": drip, "sent": 0})

    clients = [("127.0.1.%d" % (n + 1), False) for n in range(options.sources) for _ in range(options.per_source)]
    clients += [("127.0.2.%d" % (n + 1), True) for n in range(options.drip)]
    for source, drip in clients:
        open_one(source, drip)
    print("holding %d" % len(clients), flush=True)

    def stop(*_):
        state["stop"] = True

    signal.signal(signal.SIGTERM, stop)
    started = time.monotonic()
    next_drip = started
    while not state["stop"] and time.monotonic() - started < options.duration:
        for key, _ in selector.select(timeout=0.1):
            sock, data = key.fileobj, key.data
            try:
                closed = sock.recv(4096) == b""
            except (ConnectionError, BlockingIOError, OSError):
                closed = True
            if closed:
                selector.unregister(sock)
                sock.close()
                state["closed"] += 1
                open_one(data["source"], data["drip"])
        if time.monotonic() >= next_drip:
            next_drip += 0.5
            for key in list(selector.get_map().values()):
                data = key.data
                if data["drip"]:
                    byte = TLS_START[data["sent"]:data["sent"] + 1] or b"\0"
                    try:
                        key.fileobj.send(byte)
                        data["sent"] += 1
                    except (BlockingIOError, OSError):
                        pass
    print("opened %d closed %d" % (state["opened"], state["closed"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

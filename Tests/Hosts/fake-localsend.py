#!/usr/bin/env python3
"""A hostile LocalSend receiver for share's tests: an HTTPS server on a simulated host that answers
prepare-upload the way it is told to, so that the sender's handling of bad answers can be checked.

  fake-localsend.py --cert CERT --key KEY --mode MODE [--port N]

Modes:
  huge-answer     answers prepare-upload with 200 and a 5 MB body
  foreign-token   answers with a session whose token is for a file that was not offered
  not-http        answers prepare-upload with bytes that are not HTTP
  slow-answer     accepts, then answers nothing until the sender gives up

It prints "serving" once it listens, and every request it gets as "request METHOD PATH".
"""
import argparse
import json
import socket
import ssl
import sys
import threading
import time


def handle(conn, mode):
    try:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        line = head.split(b"\r\n")[0].decode("latin-1")
        method, path = line.split(" ")[0], line.split(" ")[1]
        print("request", method, path, flush=True)
        length = 0
        for header in head.split(b"\r\n")[1:]:
            name, _, value = header.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        while len(rest) < length:
            chunk = conn.recv(65536)
            if not chunk:
                break
            rest += chunk
        if "prepare-upload" not in path:
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        if mode == "huge-answer":
            body = b"{" + b" " * (5 << 20) + b"}"
        elif mode == "foreign-token":
            body = json.dumps({"sessionId": "s1", "files": {"not-offered": "t"}}).encode()
        elif mode == "not-http":
            conn.sendall(b"SSH-2.0-OpenSSH_9.2\r\n\r\n")
            return
        elif mode == "slow-answer":
            time.sleep(3600)
            return
        else:
            body = b"{}"
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
            % len(body) + body)
    except (OSError, ssl.SSLError):
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--mode", required=True)
    parser.add_argument("--port", type=int, default=53317)
    args = parser.parse_args()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("0.0.0.0", args.port))
    listener.listen(16)
    print("serving", flush=True)
    while True:
        raw, _ = listener.accept()
        try:
            conn = context.wrap_socket(raw, server_side=True)
        except (OSError, ssl.SSLError):
            raw.close()
            continue
        threading.Thread(target=handle, args=(conn, args.mode), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""A LocalSend sender that misbehaves on request, for share's tests: it speaks raw HTTPS to a
LocalSend receiver and prints what came back as one JSON line {"status": N, "body": "..."}.

  prepare HOST:PORT FILES_JSON [PIN]        FILES_JSON: the "files" object, or @PATH of a whole body
  upload HOST:PORT SID FID TOKEN DATA [DECLARED [SEND]]
                                            DECLARED: the Content-Length to claim; SEND: bytes to send
                                            before closing (fewer than DECLARED cuts the body short)
  cancel HOST:PORT SID

FAKE_SENDER_TIMEOUT (seconds, default 20): how long it waits for an answer before it gives up and closes.
FAKE_SENDER_DRIP (seconds): send a body one byte at a time, this long apart.
"""
import json, os, socket, ssl, sys, time

INFO = {"alias": "Fake sender", "version": "2.1", "deviceModel": "Test", "deviceType": "headless",
        "fingerprint": "FA" * 32, "port": 53317, "protocol": "https", "download": False}


def connect(endpoint):
    host, port = endpoint.rsplit(":", 1)
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    raw = socket.create_connection((host, int(port)), timeout=float(os.environ.get("FAKE_SENDER_TIMEOUT", "20")))
    return context.wrap_socket(raw, server_hostname=host)


def request(endpoint, target, body=b"", declared=None, send=None):
    connection = connect(endpoint)
    length = len(body) if declared is None else declared
    head = f"POST {target} HTTP/1.1\r\nHost: {endpoint}\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
    connection.sendall(head.encode())
    payload = body if send is None else body[:send]
    try:
        drip = float(os.environ.get("FAKE_SENDER_DRIP", "0"))
        if drip > 0:
            for index in range(len(payload)):
                connection.sendall(payload[index:index + 1])
                time.sleep(drip)
        else:
            connection.sendall(payload)
        if send is not None and send < length:
            connection.close()
            return {"status": 0, "body": "cut short"}
        answer = b""
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                break
            answer += chunk
    except (ConnectionError, ssl.SSLError, OSError) as error:
        return {"status": -1, "body": str(error)}
    text = answer.decode("utf-8", "replace")
    status = int(text.split(" ", 2)[1]) if text.startswith("HTTP/") else -1
    return {"status": status, "body": text.split("\r\n\r\n", 1)[-1]}


def main(arguments):
    command, endpoint = arguments[0], arguments[1]
    if command == "prepare":
        files = arguments[2]
        if files.startswith("@"):
            body = open(files[1:], "rb").read()
        else:
            body = json.dumps({"info": INFO, "files": json.loads(files)}).encode()
        pin = f"?pin={arguments[3]}" if len(arguments) > 3 else ""
        result = request(endpoint, "/api/localsend/v2/prepare-upload" + pin, body)
    elif command == "upload":
        sid, fid, token, data = arguments[2:6]
        declared = int(arguments[6]) if len(arguments) > 6 else None
        send = int(arguments[7]) if len(arguments) > 7 else None
        body = open(data, "rb").read()
        result = request(endpoint, f"/api/localsend/v2/upload?sessionId={sid}&fileId={fid}&token={token}", body, declared, send)
    elif command == "cancel":
        result = request(endpoint, f"/api/localsend/v2/cancel?sessionId={arguments[2]}")
    else:
        raise SystemExit(f"unknown command {command}")
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

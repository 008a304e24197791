#!/usr/bin/env python3
"""tcp_bulk — one plain TCP transfer, for measuring the emulated link without TLS's CPU cost.

  tcp_bulk.py send PORT BYTES      listen on PORT (all addresses), send BYTES to the first
                                   client, close
  tcp_bulk.py recv HOST PORT       connect (retrying for up to 5 s while the sender starts),
                                   read to EOF; prints "BYTES SECONDS" (first byte → EOF)

The kernel does the work (1 MiB sendall / recv_into), so a Python sender and receiver move
several Gbit/s on loopback; iperf3 would do the same but is one more package to install.
"""
import socket
import sys
import time

CHUNK = 1 << 20


def send(port, total):
    with socket.create_server(("", port), reuse_port=False) as srv:
        conn, _ = srv.accept()
        with conn:
            block = memoryview(bytes(CHUNK))
            left = total
            while left > 0:
                n = min(left, CHUNK)
                conn.sendall(block[:n])
                left -= n


def recv(host, port):
    deadline = time.monotonic() + 5
    while True:
        try:
            conn = socket.create_connection((host, port))
            break
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)
    buf = bytearray(CHUNK)
    view = memoryview(buf)
    total = 0
    first = None
    with conn:
        while True:
            n = conn.recv_into(view)
            if n == 0:
                break
            if first is None:
                first = time.monotonic()
            total += n
    print(total, round(time.monotonic() - first, 6) if first else 0)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "send":
        send(int(sys.argv[2]), int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "recv":
        recv(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

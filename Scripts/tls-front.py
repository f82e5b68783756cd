#!/usr/bin/env python3
"""A TLS front for a local Kinto, for Shelf's tests: the way a reverse proxy
(nginx, Caddy) serves Kinto over https:// in production, in a few lines.

    tls-front.py --cert CERT.pem --key KEY.pem --upstream PORT

Listens on a free 127.0.0.1 port, prints `ready <port>`, terminates TLS with the given
certificate and relays the bytes of each connection to 127.0.0.1:<upstream> and back.
Stops on SIGTERM/SIGINT and when its parent process dies, like kinto-supervised.py.
"""
import argparse
import os
import signal
import socket
import ssl
import sys
import threading
import time


def relay(source, target):
    """Copies bytes until either side closes; bounded by the sockets' timeouts."""
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, target):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(client, context, upstream):
    try:
        client.settimeout(30)
        tls = context.wrap_socket(client, server_side=True)
    except (ssl.SSLError, OSError):
        # A client that refused the certificate hangs up here: that is the point.
        client.close()
        return
    try:
        backend = socket.create_connection(("127.0.0.1", upstream), timeout=30)
    except OSError:
        tls.close()
        return
    threading.Thread(target=relay, args=(tls, backend), daemon=True).start()
    relay(backend, tls)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--upstream", type=int, required=True)
    args = parser.parse_args()

    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.signal(signal.SIGINT, lambda *_: os._exit(0))
    parent = os.getppid()

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.settimeout(0.5)
    print(f"ready {listener.getsockname()[1]}", flush=True)

    while True:
        if os.getppid() != parent:
            os._exit(0)
        try:
            client, _ = listener.accept()
        except socket.timeout:
            continue
        threading.Thread(target=serve, args=(client, context, args.upstream), daemon=True).start()


if __name__ == "__main__":
    main()

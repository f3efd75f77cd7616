#!/usr/bin/env python3
"""tools/netns/echo_server.py - TCP echo server for the TAP self-test (runs in the test namespace).

Input: address and port on the command line; TCP connections from the firmware stack.
Output: every byte echoed back; the connection is closed when the client closes its side;
one line per connection on stdout ("conn <peer> echoed <n> bytes, closed by client").
"""
import socket
import socketserver
import sys


class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        total = 0
        s = self.request
        while True:
            data = s.recv(65536)
            if not data:
                break
            s.sendall(data)
            total += len(data)
        s.shutdown(socket.SHUT_WR)
        print(f"conn {self.client_address[0]}:{self.client_address[1]} echoed {total} bytes, closed by client",
              flush=True)


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


if __name__ == "__main__":
    host, port = sys.argv[1], int(sys.argv[2])
    with Server((host, port), Echo) as srv:
        print(f"listening on {host}:{port}", flush=True)
        srv.serve_forever()

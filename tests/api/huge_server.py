"""A loopback HTTP server whose every answer is huge: the wire shape the sandbox cannot produce.

It answers each request with a 200 and a body of ``body_bytes`` spaces, sent in 1 MB chunks (chunked transfer
encoding, so the size is known only by reading), or with only a ``Content-Length`` of ``declared`` bytes and
nothing else. It counts what it managed to send: a client that stops reading closes the connection, and the
server's next send fails.
"""

from __future__ import annotations

import socket
import socketserver
import threading
from types import TracebackType

CHUNK = 1024 * 1024


class HugeServer:
    def __init__(self, body_bytes: int, *, declared: int | None = None) -> None:
        self.body_bytes = body_bytes
        self.declared = declared
        self.sent: list[int] = []  # body bytes sent on each connection, once it ended
        self.requests = 0
        owner = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # the request's head; these requests carry no body (GETs)
                owner.requests += 1
                owner.sent.append(owner.answer(self.connection))

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def answer(self, connection: socket.socket) -> int:
        sent = 0
        try:
            if self.declared is not None:
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                   b"Content-Length: %d\r\n\r\n" % self.declared)
                return 0
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               b"Transfer-Encoding: chunked\r\n\r\n")
            chunk = b" " * CHUNK
            while sent < self.body_bytes:
                connection.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
            connection.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the client closed the connection
        return sent

    def __enter__(self) -> HugeServer:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

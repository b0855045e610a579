"""uvicorn's HTTP/1.1 protocol with a bound on how long a request may take to arrive.

uvicorn has no such bound of its own: its keep-alive timeout covers the idle time between
two requests and is reset by every byte received, so a client that sends half a request
(or a byte at a time, or nothing at all after connecting) holds a connection as long as
it likes. Here every connection has a deadline, armed when it opens and again when a
response ends, and disarmed once a whole request (head and body) has arrived: the work
itself is not timed here (the application bounds it). At the deadline a connection that
sent part of a request is answered ``408`` (one line of JSON) and closed; one that sent
nothing is closed.
"""

from __future__ import annotations

import asyncio
import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a request may take to arrive, from the connection's start (or the end of the
#: previous response) to the last byte of its body.
READ_TIMEOUT = 10.0


class DeadlineProtocol(H11Protocol):
    """H11Protocol whose requests must arrive within :attr:`read_timeout` seconds."""

    read_timeout: float = READ_TIMEOUT

    _deadline: asyncio.TimerHandle | None = None
    _heard: bool = False  # a byte came since the deadline was armed

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._heard = True
        super().data_received(data)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self._disarm()  # the whole request is in (or the connection is done with)

    def on_response_complete(self) -> None:
        # Armed first: the response's end may hand a pipelined request, whole, to
        # handle_events, which disarms it again.
        self._arm()
        super().on_response_complete()

    def _arm(self) -> None:
        self._disarm()
        self._heard = False
        self._deadline = self.loop.call_later(self.read_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        """The deadline passed before the request was in: 408 if part of one came."""
        self._deadline = None
        if self.transport.is_closing():
            return
        if self._heard and (self.cycle is None or not self.cycle.response_started):
            self._send_408()
        if self.cycle is not None and not self.cycle.response_complete:
            # the application waiting for the rest of the body hears a disconnect
            self.cycle.disconnected = True
            self.cycle.message_event.set()
        self.transport.close()

    def _send_408(self) -> None:
        body = json.dumps(
            {"error": f"request: not received within {self.read_timeout:g} s"}
        ).encode()
        head = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"connection", b"close"),
        ]
        if self.conn.our_state is h11.SEND_RESPONSE:  # the request's head came
            self.transport.write(
                self.conn.send(
                    h11.Response(status_code=408, headers=head, reason=b"Request Timeout")
                )
            )
            self.transport.write(self.conn.send(h11.Data(data=body)))
            self.transport.write(self.conn.send(h11.EndOfMessage()))
            return
        # part of a head: h11 has no request to answer, so the answer is written as is
        lines = [b"HTTP/1.1 408 Request Timeout"] + [name + b": " + value for name, value in head]
        self.transport.write(b"\r\n".join(lines) + b"\r\n\r\n" + body)


def deadline_protocol(read_timeout: float) -> type[DeadlineProtocol]:
    """The protocol class for uvicorn's ``http`` setting, with this read timeout."""
    return type("DeadlineProtocol", (DeadlineProtocol,), {"read_timeout": read_timeout})

"""A TCP relay of the tests' own (this machine's kernel has no netem): it
forwards each connection it accepts to a target port, holding every chunk
of bytes a set time in each direction, in order, as a link of that latency
would; and it can drop a connection after a set number of bytes from the
client, as a link that fails in the middle of a command: the server's end
shut down, the client's reset (RST).

    relay = Relay(listen_port, target_port, delay_s=0.001, drop_after=None)
    ... relay.close()

SPDX-License-Identifier: MIT
"""
import collections
import socket
import struct
import threading
import time


_DROP = object()  # in a pipe's queue: the connection is dropped there


class _Pipe:
    """One direction of one connection: read as it comes, written when due."""

    def __init__(self, src, dst, delay, drop_after, on_drop):
        self.src, self.dst, self.delay = src, dst, delay
        self.drop_after, self.on_drop = drop_after, on_drop
        self.queue, self.cond = collections.deque(), threading.Condition()
        self.done = False
        self.moved = 0
        threading.Thread(target=self.read, daemon=True).start()
        threading.Thread(target=self.write, daemon=True).start()

    def read(self):
        while True:
            try:
                data = self.src.recv(65536)
            except OSError:
                data = b''
            if self.drop_after is not None and data and self.moved + len(data) > self.drop_after:
                self.push(data[:max(0, self.drop_after - self.moved)])
                self.push(_DROP)  # the writer drops the connection once the bytes before are through
                return
            self.moved += len(data)
            self.push(data or None)
            if not data:
                return

    def push(self, data):
        with self.cond:
            self.queue.append((time.monotonic() + self.delay, data))
            self.cond.notify()

    def write(self):
        while True:
            with self.cond:
                while not self.queue:
                    self.cond.wait()
                due, data = self.queue.popleft()
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            if data is None or data is _DROP:
                try:
                    self.dst.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                if data is _DROP:
                    self.on_drop()
                return
            try:
                self.dst.sendall(data)
            except OSError:
                return


class Relay:
    def __init__(self, listen_port, target_port, delay_s=0.0, drop_after=None):
        self.target, self.delay, self.drop_after = target_port, delay_s, drop_after
        self.dropped = threading.Event()
        self.conns = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(('127.0.0.1', listen_port))
        self.sock.listen(8)
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            server = socket.create_connection(('127.0.0.1', self.target))
            for s in (client, server):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.conns += [client, server]

            def drop(c=client, s=server):
                self.dropped.set()
                for x in (c, s):
                    try:
                        x.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                # the client is reset, as by a link that failed: a shutdown alone
                # leaves it blocked in send() for good once this side's window is full
                try:
                    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
                    c.close()
                except OSError:
                    pass  # closed already, by close()
            _Pipe(client, server, self.delay, self.drop_after, drop)
            _Pipe(server, client, self.delay, None, lambda: None)

    def close(self):
        self.sock.close()
        for s in self.conns:
            try:
                s.close()
            except OSError:
                pass

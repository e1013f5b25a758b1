#!/usr/bin/env python3
"""bench/elector_bench.py — `forgemeter lease serve`'s two figures (bench/elector.md).

  handover STORE_URI [N]   two replicas, each polled every 20 ms; N SIGTERMs of the
                           leader (then N/2 resigns): from the signal (the resign's
                           answer) to the other's first leader answer received,
                           beside the cap (--answer-validity 1s; target cap + 100 ms)
  fanout [CLIENTS] [N]     one replica on the memory store, CLIENTS event streams
                           (default 1000) on one event loop; N resigns: from each
                           resign's answer to its `stepped_down` event at every
                           client (p50, p99, max), and the replica's RSS without
                           clients and with them

Standard library only; the binary is build/release/src/cli/forgemeter (or
$FORGEMETER_BIN). Not run by the suite: it takes a minute and wants an idle machine.
"""
import json
import os
import resource
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("FORGEMETER_BIN", os.path.join(HERE, "..", "build", "release", "src", "cli", "forgemeter"))
TOKEN_DIR = tempfile.mkdtemp(prefix="elector-bench-")
TOKEN = "bench-token"
with open(os.path.join(TOKEN_DIR, "token"), "w") as f:
    f.write(TOKEN + "\n")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Replica:
    def __init__(self, store, owner, ttl="2s"):
        self.store, self.owner, self.ttl = store, owner, ttl
        self.port, self.admin = free_port(), free_port()
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            [BIN, "lease", "serve", "--store", self.store, "--owner", self.owner, "--ttl", self.ttl,
             "--listen", f"127.0.0.1:{self.port}", "--admin-listen", f"127.0.0.1:{self.admin}",
             "--admin-token-file", os.path.join(TOKEN_DIR, "token"), "--max-connections", "5000", "sweeper"],
            stderr=subprocess.DEVNULL)
        until = time.monotonic() + 20
        while time.monotonic() < until:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1).close()
                return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"{self.owner} does not serve")

    def answer(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/leases/sweeper", timeout=0.2) as r:
            return json.load(r)

    def resign(self):
        req = urllib.request.Request(f"http://127.0.0.1:{self.admin}/leases/sweeper/resign", method="POST",
                                     headers={"Authorization": "Bearer " + TOKEN})
        urllib.request.urlopen(req, timeout=5).close()

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)


def leader_after(replicas, old, since, timeout=10.0):
    """The other replica's first leader answer received after `since`: its receipt."""
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        for r in replicas:
            if r is old:
                continue
            try:
                if r.answer()["leader"]:
                    return time.monotonic()
            except OSError:
                pass
        time.sleep(0.02)
    raise RuntimeError("no successor")


def handover(store, n):
    a, b = Replica(store, "a"), Replica(store, "b")
    a.start()
    b.start()
    replicas = [a, b]
    took = {"SIGTERM": [], "resign": []}
    for i in range(n + n // 2):
        how = "SIGTERM" if i < n else "resign"
        leader = None
        while leader is None:
            for r in replicas:
                try:
                    if r.answer()["leader"]:
                        leader = r
                except OSError:
                    pass
            time.sleep(0.02)
        for _ in range(5):  # a promise of the full cap outstanding, as a polling client leaves one
            leader.answer()
            time.sleep(0.02)
        t0 = time.monotonic()
        if how == "SIGTERM":
            leader.proc.send_signal(signal.SIGTERM)
        else:
            leader.resign()
            t0 = time.monotonic()
        took[how].append((leader_after(replicas, leader, t0) - t0) * 1000)
        if how == "SIGTERM":
            leader.proc.wait(timeout=30)
            leader.start()
        else:
            time.sleep(2.1)  # the resigned replica stays out one TTL (2 s): let it back for the next
    for r in replicas:
        r.stop()
    for how, ms in took.items():
        print(f"{how}: {len(ms)} handovers, median {statistics.median(ms):.0f} ms, worst {max(ms):.0f} ms "
              f"(cap 1000 ms, target cap + 100 ms: {'met' if statistics.median(ms) <= 1100 else 'not met'})")


def fanout(clients, n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    r = Replica("memory:", "a", ttl="1s")
    r.start()
    while not r.answer()["leader"]:
        time.sleep(0.02)
    idle_rss = r.rss_kib()
    sel = selectors.DefaultSelector()
    socks = []
    for _ in range(clients):
        s = socket.create_connection(("127.0.0.1", r.port))
        s.sendall(b"GET /leases/sweeper/events HTTP/1.1\r\nHost: x\r\n\r\n")
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, bytearray())
        socks.append(s)

    def read_until(pred, timeout):
        """Reads every stream until pred(buffer) holds for all: each one's receipt time."""
        got, until = {}, time.monotonic() + timeout
        while len(got) < len(socks) and time.monotonic() < until:
            for key, _ in sel.select(timeout=0.5):
                data = key.fileobj.recv(65536)
                key.data.extend(data)
                if key.fileobj not in got and pred(key.data):
                    got[key.fileobj] = time.monotonic()
        return got

    read_until(lambda b: b'"event":"state"' in b, 30)
    rss = r.rss_kib()
    lat = []
    for _ in range(n):
        for key in sel.get_map().values():
            key.data.clear()
        r.resign()
        t0 = time.monotonic()
        got = read_until(lambda b: b'"stepped_down"' in b, 10)
        lat += [(t - t0) * 1000 for t in got.values()]
        missed = len(socks) - len(got)
        if missed:
            print(f"{missed} clients missed the change")
        read_until(lambda b: b'"elected"' in b, 10)  # back in one TTL
    lat.sort()
    print(f"fanout: {clients} event streams, {n} changes: to every client p50 {lat[len(lat) // 2]:.1f} ms, "
          f"p99 {lat[int(len(lat) * 0.99)]:.1f} ms, max {lat[-1]:.1f} ms (target p99 <= 100 ms); "
          f"RSS {idle_rss / 1024:.1f} MiB idle, {rss / 1024:.1f} MiB with the streams "
          f"({(rss - idle_rss) / clients:.1f} KiB each)")
    for s in socks:
        s.close()
    r.stop()


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("handover", "fanout"):
        sys.exit(__doc__)
    if sys.argv[1] == "handover":
        handover(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 10)
    else:
        fanout(int(sys.argv[2]) if len(sys.argv) > 2 else 1000, int(sys.argv[3]) if len(sys.argv) > 3 else 5)

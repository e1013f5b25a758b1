# The event stream of GET /leases/NAME/events: events arrive, their ids are
# TERM.SEQ in order, and a reconnect with Last-Event-ID gets the current
# state first. Drives a resign itself through the admin listener.
#   sse_check.py BASE ADMIN TOKEN NAME  -> exit 0, or an assertion's message
import json
import sys
import urllib.request

base, admin, token, name = sys.argv[1:5]


def get(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)


def events(last_id=None):
    req = urllib.request.Request(f"{base}/leases/{name}/events")
    if last_id:
        req.add_header("Last-Event-ID", last_id)
    stream = urllib.request.urlopen(req, timeout=30)
    ident = None
    for line in stream:
        line = line.decode().rstrip("\n")
        if line.startswith("id: "):
            ident = line[4:]
        elif line.startswith("data: "):
            data = json.loads(line[6:])
            assert data["id"] == ident, (data, ident)
            yield data


def order(ident):
    term, seq = ident.split(".")
    return int(term), int(seq)


now = get(f"{base}/leases/{name}")
assert now["leader"], now
stream = events()
first = next(stream)
assert first["event"] == "state" and first["id"] == now["id"] and first["valid_for_ms"] == 0, first
resign = urllib.request.Request(f"{admin}/leases/{name}/resign", method="POST",
                                headers={"Authorization": "Bearer " + token})
with urllib.request.urlopen(resign, timeout=5) as r:
    assert r.status == 202, r.status
seen = [next(stream) for _ in range(3)]
kinds = [e["event"] for e in seen]
assert kinds == ["stepped_down", "released", "elected"], kinds
ids = [first["id"]] + [e["id"] for e in seen]
assert [order(i) for i in ids] == sorted(order(i) for i in ids) and len(set(ids)) == 4, ids
assert seen[0]["leader"] is False and seen[2]["leader"] is True and seen[2]["term"] == now["term"] + 1, seen
again = next(events(last_id=seen[0]["id"]))
assert again["event"] == "state" and again["id"] == seen[2]["id"] and again["leader"], again
print("events:", " ".join(f"{e['event']}@{e['id']}" for e in seen), "reconnect:", again["id"])

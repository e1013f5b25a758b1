# A client as written for Kubernetes' leader-elector sidecar: it polls GET /
# and compares the leader's name with its own host name. Unchanged against
# `forgemeter lease serve` (one NAME, --owner left to the host name).
#   k8s_client.py BASE_URL COUNT  -> COUNT lines, "leader" or "follower"
import json
import socket
import sys
import time
import urllib.request

for _ in range(int(sys.argv[2])):
    with urllib.request.urlopen(sys.argv[1] + "/", timeout=5) as r:
        leader = json.load(r)["name"]
    print("leader" if leader == socket.gethostname() else "follower", flush=True)
    time.sleep(0.05)

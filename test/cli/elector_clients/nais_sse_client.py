# A client as written for nais/elector: it reads the /sse stream and takes
# each message's "name" as the current leader. Unchanged against
# `forgemeter lease serve` (one NAME).
#   nais_sse_client.py BASE_URL COUNT  -> the name of each of the first COUNT messages
import json
import sys
import urllib.request

stream = urllib.request.urlopen(sys.argv[1] + "/sse", timeout=30)
seen = 0
for line in stream:
    if line.startswith(b"data:"):
        print("name=" + json.loads(line[5:]).get("name", ""), flush=True)
        seen += 1
        if seen == int(sys.argv[2]):
            break

# A GitHub App's client as fleets write it: PyGithub's GithubIntegration
# (Debian's python3-github, unchanged) mints an installation token with a JWT
# of its own whenever the one it has is within MARGIN seconds of expiring;
# between mints, keep-alive GETs (http.client: PyGithub's objects cost more
# CPU than the test's two cores spare) read the same RESOURCES paths every
# MINUTE seconds, ROUNDS times, with that token.
# Usage: python3 pygithub_app_reads.py BASE_URL APP_ID KEY_FILE INSTALLATION RESOURCES MINUTE ROUNDS MARGIN
# Prints one JSON line: the tokens it used, its mints, its answers by status,
# the rounds that started late (the machine too slow for the clock).
import calendar
import http.client
import json
import sys
import time
import urllib.parse

from github import GithubIntegration

base_url, app_id, key_file, installation = sys.argv[1:5]
resources, minute, rounds, margin = int(sys.argv[5]), float(sys.argv[6]), int(sys.argv[7]), float(sys.argv[8])
with open(key_file) as f:
    integration = GithubIntegration(int(app_id), f.read(), base_url=base_url)
base = urllib.parse.urlsplit(base_url)
conn = http.client.HTTPConnection(base.hostname, base.port)
token, expires, tokens, mints, statuses, late = None, 0.0, [], 0, {}, 0
start = time.monotonic()
for r in range(rounds):
    wait = start + r * minute - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    elif r > 0:
        late += 1
    if token is None or expires - time.time() <= margin:
        auth = integration.get_access_token(int(installation))
        token, expires = auth.token, calendar.timegm(auth.expires_at.timetuple())
        mints += 1
        if token not in tokens:
            tokens.append(token)
    for i in range(resources):
        conn.request("GET", f"{base.path}/repos/o/r/issues/{i + 1}", headers={"Authorization": "token " + token})
        answer = conn.getresponse()
        answer.read()
        statuses[answer.status] = statuses.get(answer.status, 0) + 1
print(json.dumps({"tokens": tokens, "mints": mints, "statuses": statuses, "late": late}))

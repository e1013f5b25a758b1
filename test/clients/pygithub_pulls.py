# PyGithub (Debian's python3-github), unchanged, pointed at a base URL: a
# repository's pulls listed whole (PyGithub follows the Link header's next
# URL and refuses one on another host), and one pull read by its own `url`.
# Usage: python3 pygithub_pulls.py BASE_URL TOKEN OWNER/REPO PER_PAGE
# Prints one JSON line: the pulls' count and the first pull's title.
import json
import sys

from github import Github

base_url, token, full, per_page = sys.argv[1:5]
g = Github(base_url=base_url, login_or_token=token, per_page=int(per_page), retry=None)
pulls = list(g.get_repo(full).get_pulls(state="all"))
first = pulls[0]
first.update()  # a fresh GET of the pull's own `url`
print(json.dumps({"count": len(pulls), "first": first.title, "hosts": sorted({p.url.split("/")[2] for p in pulls})}))

# PyGithub (Debian's python3-github), unchanged, as a GitHub App: a JWT of
# its own making (RS256, iat now, exp now + 60 s) traded for an
# installation token, which then reads a repository.
# Usage: python3 pygithub_app_token.py BASE_URL APP_ID PRIVATE_KEY_FILE INSTALLATION_ID OWNER/REPO
# Prints one JSON line: the token, its expiry as PyGithub read it, the repository's full name.
import json
import sys

from github import Github, GithubIntegration

base_url, app_id, key_file, installation, full = sys.argv[1:6]
with open(key_file) as f:
    private_key = f.read()
auth = GithubIntegration(int(app_id), private_key, base_url=base_url).get_access_token(int(installation))
repo = Github(base_url=base_url, login_or_token=auth.token, retry=None).get_repo(full)
print(json.dumps({"token": auth.token, "expires_at": auth.expires_at.isoformat(), "repo": repo.full_name}))

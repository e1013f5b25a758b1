// octokit, unchanged, pointed at a base URL: every pull of a repository read
// through `paginate` (which follows the Link header's absolute next URL).
// Usage: node octokit_pulls.mjs BASE_URL TOKEN OWNER/REPO PER_PAGE
// Prints one JSON line: the pulls' count and the hosts their `url` fields name.
import { Octokit } from "@octokit/rest";

const [baseUrl, token, full, perPage] = process.argv.slice(2);
const [owner, repo] = full.split("/");
const octokit = new Octokit({ baseUrl, auth: token, request: { retries: 0 } });
const pulls = await octokit.paginate(octokit.rest.pulls.list, { owner, repo, per_page: Number(perPage) });
const hosts = [...new Set(pulls.map((p) => new URL(p.url).host))];
console.log(JSON.stringify({ count: pulls.length, hosts }));

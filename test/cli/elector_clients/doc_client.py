# Runs the Python client of docs/elector.md as it stands there (the first
# ```python block), with a step that records when it ran against its
# promise, across a resign: it must lead, stop within its promise, sleep on
# the events, and lead again in the next term.
#   doc_client.py DOC BASE ADMIN TOKEN NAME  -> exit 0, or an assertion's message
import sys
import time
import urllib.request

doc, base, admin, token, name = sys.argv[1:6]
text = open(doc).read()
block = text.split("```python\n", 1)[1].split("```", 1)[0]
exec(block)  # defines lead(base, name, step)

steps = []


class Done(Exception):
    pass


def step(term, until):
    start = time.monotonic()
    time.sleep(0.01)
    steps.append((start, time.monotonic(), until, term))
    if len(steps) == 10:
        req = urllib.request.Request(f"{admin}/leases/{name}/resign", method="POST",
                                     headers={"Authorization": "Bearer " + token})
        urllib.request.urlopen(req, timeout=5).close()
    if len([s for s in steps if s[3] != steps[0][3]]) == 5:
        raise Done()


try:
    lead(base, name, step)
except Done:
    pass
late = [s for s in steps if s[1] > s[2]]
assert not late, f"{len(late)} steps ran past their promise"
terms = sorted({s[3] for s in steps})
assert len(terms) == 2 and terms[1] > terms[0], terms
gap = min(s[0] for s in steps if s[3] == terms[1]) - max(s[1] for s in steps if s[3] == terms[0])
print(f"{len(steps)} steps in terms {terms}, none past its promise; {gap * 1000:.0f} ms without a promise")

"""Crafted query strings on every page: whatever a person or a script puts in the address bar,
a page answers with a page (200, a 4xx with the problem shown, a redirect), never a 500. The
pages' counterpart of the API's fuzz test (tests/web/test_api_fuzz.py)."""
from urllib.parse import quote

import pytest

from tests.assessments.test_pages import PASSWORD, Page

NAMES = ("page", "job_id", "assessment", "assessment_id", "style", "track", "skill", "skills", "q",
         "seniority", "workplace", "location", "min_salary", "max_salary", "currency", "level",
         "target", "next", "backend", "gpu", "role", "invitation", "email", "hours", "task", "from",
         "to", "sort", "per_page", "candidate_id", "submission")
VALUES = ("99999999999999999999", "-1", "1e309", "%00%ff", "x" * 3000)
PATH_VALUES = {"int": ("1", "2147483647"), "default": ("vector_add", "nope")}


def _signed_in(app, role, tag):
    page = Page(app)
    data = {"email": f"crafted-{role}-{tag}@example.com", "password": PASSWORD, "role": role,
            "name": "Pat Page"}
    if role == "recruiter":
        data["organisation"] = f"Crafted Inputs Co {tag}"
    assert page.post("/signup", data=data).status_code == 302
    return page


def _urls(app):
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or rule.rule.startswith(("/api/", "/static/")) \
                or rule.endpoint == "static":
            continue
        variants = [{}]
        for arg in rule.arguments:
            kind = type(rule._converters[arg]).__name__.lower()
            options = PATH_VALUES["int"] if "int" in kind or "id" in kind else PATH_VALUES["default"]
            variants = [dict(v, **{arg: o}) for v in variants for o in options]
        for values in variants:
            path = rule.rule
            for arg, value in values.items():
                path = path.replace(f"<{arg}>", value)
                for conv in ("int", "string", "path"):
                    path = path.replace(f"<{conv}:{arg}>", value)
            yield path


def _forget_messages(page):
    """Drop the messages a response left for the next page. A browser follows the redirect that
    carries them and shows them once; this client follows none, so thousands would pile up in its
    session cookie, each request decoding and encoding them all."""
    with page.http.session_transaction() as session:
        session.pop("_flashes", None)


# The pages by the first segment of their path, a test each, so that the work spreads evenly over
# the test workers; "other" takes every page no group names, so a new page is never left out.
GROUPS = ("account", "assessments", "candidates", "jobs", "roadmaps", "runs", "submissions",
          "tasks", "other")


def _paths(app, group: str) -> list[str]:
    named = set(GROUPS) - {"other"}
    out = []
    for path in sorted(set(_urls(app))):
        first = path.strip("/").split("/")[0]
        if path.endswith(("/logout", ".pdf")):
            continue
        if first == group or (group == "other" and first not in named):
            out.append(path)
    return out


@pytest.mark.parametrize("group", GROUPS)
@pytest.mark.parametrize("role", ["anonymous", "candidate", "recruiter"])
def test_no_crafted_query_string_makes_a_page_fail(app, role, group):
    paths = _paths(app, group)
    assert paths, f"no page in {group!r}: drop the group"
    page = Page(app) if role == "anonymous" else _signed_in(app, role, group)
    failures = []
    for path in paths:
        for name in NAMES:
            for value in VALUES:
                encoded = value if value.startswith("%") else quote(value)
                resp = page.get(f"{path}?{name}={encoded}")
                if resp.status_code >= 500:
                    failures.append(f"{path}?{name}={value[:40]} -> {resp.status_code}")
                if "Set-Cookie" in resp.headers:   # the session changed: a message may be in it
                    _forget_messages(page)
    assert not failures, "\n".join(failures[:40])


def test_the_home_page_says_where_each_kind_of_visitor_starts(app):
    html = Page(app).get("/").get_data(as_text=True)
    for who, link in (("Candidates", "/tasks/"), ("Recruiters", "/signup?role=recruiter"),
                      ("Learners", "/roadmap")):
        assert who in html and f'href="{link}"' in html, who

"""A solution nearly the same as another candidate's earlier one: the recruiter sees the flag
with a link to the other work, on the results, the submission page and the ranking's reasons;
the skills only it shows are held back until the recruiter clears it."""
import re
from pathlib import Path

import pytest

from tests.assessments.test_pages import Page, _assessment, _graded, _invite, text

pytestmark = pytest.mark.db
FIX = Path(__file__).resolve().parents[1] / "fixtures" / "submissions"


def _disguised(source: str) -> str:
    for i, name in enumerate(("block_sum", "tid", "stride", "v", "s")):
        source = re.sub(rf"\b{name}\b", f"q{i}", source)
    return "# all mine\n" + source.replace("    ", "\t")


def test_a_copied_solution_is_flagged_linked_held_back_and_cleared(app, client, make_user,
                                                                     recruiter_with_job):
    rec, job_id = recruiter_with_job
    first, second = make_user("first@example.com"), make_user("second@example.com")
    aid = _assessment(client, rec, job_id, tasks=("reduce_sum",))
    for who in ("first@example.com", "second@example.com"):
        token = _invite(client, rec, aid, who)
        assert Page(app, who).post(f"/invitations/{token}").status_code == 303
    original = (FIX / "reduce_sum" / "shared_tree.py").read_text()
    with app.app_context():
        earlier = _graded(first.user["id"], task="reduce_sum", source=original, assessment_id=aid)
        copy = _graded(second.user["id"], task="reduce_sum", source=_disguised(original),
                       assessment_id=aid)

    # The copier's skills from it are held back; the original author keeps theirs.
    mine = client.get(f"/api/v1/candidates/{second.user['id']}/profile", headers=second.headers).get_json()
    assert mine["verified"] == [] and [h["submission_id"] for h in mine["held_back"]] == [copy]
    theirs = client.get(f"/api/v1/candidates/{first.user['id']}/profile", headers=first.headers).get_json()
    assert theirs["verified"] and theirs["held_back"] == []

    # The recruiter sees it with a link to the other submission, and in the ranking's reasons.
    page = Page(app, "rec@acme.test")
    results = text(page.get(f"/assessments/{aid}"))
    assert f'href="/submissions/{earlier}"' in results and "Clear: written independently" in results
    shown = text(page.get(f"/submissions/{copy}"))
    assert 'id="similarity"' in shown and f'href="/submissions/{earlier}"' in shown
    ranked = client.get(f"/api/v1/jobs/{job_id}/candidates", headers=rec.headers).get_json()
    row = next(c for c in ranked["candidates"] if c["candidate"] == second.user["id"])
    review = [r for r in row["reasons"] if r["kind"] == "review"]
    assert review and review[0]["submission_id"] == copy and review[0]["points"] == 0
    assert round(sum(r["points"] for r in row["reasons"]), 1) == row["score"]
    # The candidate is told, without the other's identity.
    own = text(Page(app, "second@example.com").get(f"/submissions/{copy}"))
    assert "held back" in own and f"/submissions/{earlier}" not in own

    # Neither the candidate nor another organisation can clear it; the recruiter can.
    assert Page(app, "second@example.com").post(f"/submissions/{copy}/similar/{earlier}/clear").status_code == 404
    cleared = page.post(f"/submissions/{copy}/similar/{earlier}/clear")
    assert cleared.status_code == 303
    mine = client.get(f"/api/v1/candidates/{second.user['id']}/profile", headers=second.headers).get_json()
    assert mine["verified"] and mine["held_back"] == []
    assert "Cleared" in text(page.get(f"/assessments/{aid}"))
    ranked = client.get(f"/api/v1/jobs/{job_id}/candidates", headers=rec.headers).get_json()
    row = next(c for c in ranked["candidates"] if c["candidate"] == second.user["id"])
    assert not [r for r in row["reasons"] if r["kind"] == "review"]

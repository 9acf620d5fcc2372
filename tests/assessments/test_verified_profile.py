"""The profile a candidate and their recruiters read: skills verified only where the solutions
show them, levels the evidence can carry, the rule written on the page."""
from pathlib import Path

import pytest

from tests.assessments.test_pages import Page, _graded

pytestmark = pytest.mark.db
FIX = Path(__file__).resolve().parents[1] / "fixtures" / "submissions"


def test_two_solutions_verify_what_they_show_and_no_more(app, client, make_user):
    cand = make_user("shown@example.com")
    uid = cand.user["id"]
    with app.app_context():
        _graded(uid, task="vector_add", source=(FIX / "vector_add" / "raw_kernel.py").read_text())
        _graded(uid, task="reduce_sum", source=(FIX / "reduce_sum" / "shared_tree.py").read_text())
    profile = client.get(f"/api/v1/candidates/{uid}/profile", headers=cand.headers).get_json()
    levels = {v["skill"]: v["level_name"] for v in profile["verified"]}
    assert {"cuda", "shared_memory", "parallel_reduction"} <= set(levels)
    assert "warp_shuffle" not in levels                 # a shared-memory tree: no shuffle in it
    assert "atomic_operations" in levels                # its block sums meet in an atomicAdd
    assert "memory_coalescing" not in levels            # nothing was timed
    assert "advanced" not in levels.values()
    assert max(profile["verified_tracks"].values()) < 0.75
    page = Page(app, "shown@example.com").get(f"/candidates/{uid}/profile").get_data(as_text=True)
    assert "How skills are verified" in page and "Easy tasks alone stay foundational" in page
    from skillmap.taxonomy import load_taxonomy
    shuffle = load_taxonomy().get("warp_shuffle").name
    assert shuffle not in page.split('id="verified-skills"', 1)[1].split("</ul>", 1)[0]

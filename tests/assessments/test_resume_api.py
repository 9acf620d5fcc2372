"""Résumé uploads: PDF, DOCX and text become the profile's claims; unreadable files are refused
with a reason, never a 500."""
import io

import pytest

pytestmark = pytest.mark.db

RESUME = "Jane Doe\nMS in Computer Science\n5 years of CUDA and C++ kernel work; Triton; Nsight Compute."


def _pdf(text: str | None) -> bytes:
    """A one-page PDF holding `text` (or no text at all, like a scan)."""
    content = b"" if text is None else (
        b"BT /F1 11 Tf 40 800 Td 14 TL " + b" ".join(b"(" + line.encode() + b") '"
                                                     for line in text.splitlines()) + b" ET")
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = io.BytesIO(), []
    out.write(b"%PDF-1.4\n")
    for i, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % i + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for off in offsets:
        out.write(b"%010d 00000 n \n" % off)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def _docx(text: str) -> bytes:
    import docx

    document = docx.Document()
    for line in text.splitlines():
        document.add_paragraph(line)
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def _upload(client, user, data: bytes, name: str):
    return client.post(f"/api/v1/candidates/{user.user['id']}/resume", headers=user.headers,
                       data={"file": (io.BytesIO(data), name)}, content_type="multipart/form-data")


@pytest.mark.parametrize("make, name", [(_pdf, "cv.pdf"), (_docx, "cv.docx"), (str.encode, "cv.txt")])
def test_a_resume_becomes_claimed_skills_years_and_degree(client, make_user, make, name):
    cand = make_user(f"cv-{name}@example.com")
    resp = _upload(client, cand, make(RESUME), name)
    assert resp.status_code == 200, resp.get_json()
    claimed = resp.get_json()["claimed"]
    assert {"cuda", "cpp", "triton", "nsight_compute"} <= {s["id"] for s in claimed["skills"]}
    assert claimed["years"] == 5 and claimed["degree"] == "master"
    assert resp.get_json()["verified"] == []  # claims are never verified skills
    # Deleting the profile deletes the text and its claims.
    assert client.delete(f"/api/v1/candidates/{cand.user['id']}/profile", headers=cand.headers).status_code == 204
    again = client.get(f"/api/v1/candidates/{cand.user['id']}/profile", headers=cand.headers).get_json()
    assert again["claimed"]["skills"] == []


@pytest.mark.parametrize("data, name, message", [
    (b"", "empty.pdf", "empty"),
    (None, "scan.pdf", "scanned"),
    (b"%PDF-1.4 this is not really a pdf", "broken.pdf", "not a readable PDF"),
    (b"PK\x03\x04 not a zip", "broken.docx", "not a readable DOCX"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "photo.png", "unsupported"),
    (b"   \n\t ", "blank.txt", "no text"),
])
def test_unreadable_resumes_are_refused_with_a_reason(client, make_user, data, name, message):
    cand = make_user("bad-cv@example.com")
    resp = _upload(client, cand, _pdf(None) if data is None else data, name)
    assert resp.status_code == 422, resp.get_json()
    body = resp.get_json()
    assert body["field"] == "file" and message in body["message"]


def test_a_20_mb_upload_is_refused_before_it_is_read(client, make_user):
    cand = make_user("big-cv@example.com")
    resp = _upload(client, cand, b"x" * (20 * 1024 * 1024), "big.txt")
    assert resp.status_code == 413 and resp.is_json


def test_no_file_and_another_persons_resume_are_refused(client, make_user):
    cand, other = make_user("me@example.com"), make_user("them@example.com")
    missing = client.post(f"/api/v1/candidates/{cand.user['id']}/resume", headers=cand.headers,
                          data={}, content_type="multipart/form-data")
    assert missing.status_code == 422 and "file" in missing.get_json()["errors"]["files"]
    assert _upload(client, other, b"CUDA", "cv.txt").status_code == 200
    resp = client.post(f"/api/v1/candidates/{cand.user['id']}/resume", headers=other.headers,
                       data={"file": (io.BytesIO(b"CUDA"), "cv.txt")}, content_type="multipart/form-data")
    assert resp.status_code == 404

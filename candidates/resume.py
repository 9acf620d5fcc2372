"""Text from an uploaded résumé: PDF (pypdf), DOCX (python-docx) or plain text.

The type comes from the file's first bytes, not its name. What cannot be read gets a reason a
person can act on ("a scanned PDF has no text: paste the text instead").
"""
from __future__ import annotations

import io
import zipfile

from refusals import Invalid

MAX_PAGES = 30
MAX_TEXT = 50_000  # characters kept, as for a typed profile


class ResumeError(Invalid):
    def __init__(self, message: str, field: str = "file"):
        super().__init__(message, field)


MAX_BYTES = 1024 * 1024


def uploaded_resume_text(upload, field: str = "file") -> str:
    """The text of an uploaded file (a werkzeug FileStorage), read up to MAX_BYTES."""
    data = upload.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ResumeError("the résumé is over 1 MB", field)
    try:
        return resume_text(data)
    except ResumeError as err:
        raise ResumeError(err.message, field) from None


def resume_text(data: bytes) -> str:
    """The résumé's text (at most MAX_TEXT characters)."""
    if not data:
        raise ResumeError("the file is empty")
    if data.startswith(b"%PDF-"):
        text = _pdf_text(data)
    elif data.startswith(b"PK\x03\x04"):
        text = _docx_text(data)
    else:
        text = _plain_text(data)
    text = "\n".join(line.rstrip() for line in text.splitlines())
    if not text.strip():
        raise ResumeError("no text found in the file (a scanned PDF has none): paste the text instead")
    return text[:MAX_TEXT]


def _pdf_text(data: bytes) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ResumeError("the PDF is password-protected: save it without a password, or paste the text")
        return "\n".join((page.extract_text() or "") for page in reader.pages[:MAX_PAGES])
    except ResumeError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError,
            RecursionError, OSError, zipfile.BadZipFile):
        raise ResumeError("not a readable PDF") from None


def _docx_text(data: bytes) -> str:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, OSError):
        raise ResumeError("not a readable DOCX (Word) file") from None
    parts = [p.text for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            parts.append("  ".join(cell.text for cell in row.cells))
    return "\n".join(parts)


def _plain_text(data: bytes) -> str:
    if b"\x00" in data:
        raise ResumeError("unsupported file: upload a PDF, a DOCX or plain text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ResumeError("unsupported file: upload a PDF, a DOCX or UTF-8 text") from None

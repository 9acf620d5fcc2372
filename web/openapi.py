"""What the OpenAPI document says about an operation beyond flask-smorest's own decorators."""
from __future__ import annotations

from copy import deepcopy

from flask_smorest.utils import deepupdate


def document_bearer_auth(view, may_refuse_role: bool) -> None:
    """Mark the operation as needing a bearer token, with its refusals (401, and 403 when a
    role may not fit).

    Stored as flask-smorest's Blueprint.doc stores manual doc, so it holds whichever side of the
    smorest decorators the caller's decorator is put; `wraps` shares the inner view's `_apidoc`,
    hence the copy.
    """
    # Names of flask-smorest's response components (the Error body); apispec makes them $refs.
    responses = {"401": "UNAUTHORIZED", **({"403": "FORBIDDEN"} if may_refuse_role else {})}
    apidoc = deepcopy(getattr(view, "_apidoc", {}))
    apidoc["manual_doc"] = deepupdate(apidoc.get("manual_doc", {}),
                                      {"security": [{"bearerAuth": []}], "responses": responses})
    view._apidoc = apidoc

"""Where the work happens: remote, hybrid or on site, as the posting states it.

Postings say it in the location line ("Santa Clara, CA (Hybrid)", "Remote - US") or in a
sentence ("This role is fully remote", "on-site 4 days a week"). Hybrid wins over the other
two: a hybrid posting usually names both. A negated remote ("not remote", "no remote work")
reads as on site.
"""
from __future__ import annotations

import re

WORKPLACES = ("remote", "hybrid", "onsite")

_HYBRID = re.compile(r"\bhybrid\b(?!\s+(?:bonding|cloud|memory|model|architecture|simulat|"
                     r"parallel|approach|system|cpu|gpu|compute|quantum))", re.I)
_NOT_REMOTE = re.compile(r"\b(?:not|no|non)[\s-]+(?:an?\s+|fully\s+)?remote\b|\bremote\s+(?:work\s+)?is\s+not\b", re.I)
_REMOTE = re.compile(r"\b(?:fully\s+|100%\s+)?remote(?:[\s-]+(?:first|friendly|eligible|ok|"
                     r"possible|option|role|position|work|working|us|usa|within))?\b"
                     r"(?!\s+(?:direct\s+)?(?:memory|access|procedure|debugging|sensing|"
                     r"management|attestation|server|host|node|rendering))", re.I)
_ONSITE = re.compile(r"\bon[\s-]?site\b|\bin[\s-](?:the[\s-])?office\b|\bin[\s-]person\b", re.I)


def workplace(text: str, location: str | None = None) -> str | None:
    """remote | hybrid | onsite, or None when the posting does not say."""
    joined = f"{location or ''}\n{text}"
    if _HYBRID.search(joined):
        return "hybrid"
    if _NOT_REMOTE.search(joined):
        return "onsite"
    if _REMOTE.search(joined):
        return "remote"
    if _ONSITE.search(joined):
        return "onsite"
    return None

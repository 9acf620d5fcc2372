"""The report's kernel rows: the child's kernel records, theoretical occupancy where computable,
and the PTX/SASS listings the child sent, capped again and scrubbed whatever they hold."""
from __future__ import annotations

from ...listing_text import CAP, NOTE_CAP, cap_text
from ...report import KernelReport
from . import occupancy


def kernel_reports(records: list[dict], arch: str, listings: dict | None = None,
                   unlisted: str | None = None) -> list[KernelReport]:
    """Report rows from the child's kernel records, with theoretical occupancy where computable
    and the PTX/SASS listings by record key (`unlisted`: why a kernel has none)."""
    out = []
    for k in records:
        usage = k.get("usage") or {}
        block = k.get("block")
        rep = KernelReport(name=str(k.get("name")), kind=str(k.get("kind")), arch=arch,
                           compiled=k.get("compiled"), block=block, grid=k.get("grid"),
                           launches=int(k.get("launches", 0)),
                           dynamic_shared_bytes=int(k.get("shared_mem", 0) or 0))
        if usage:
            rep.registers = int(usage.get("registers", 0))
            rep.shared_bytes = int(usage.get("shared_bytes", 0))
            rep.stack_bytes = int(usage.get("stack_bytes", 0))
            rep.spill_stores = int(usage.get("spill_stores", 0))
            rep.spill_loads = int(usage.get("spill_loads", 0))
            rep.spill_bytes = rep.spill_stores + rep.spill_loads
            if block:
                threads = int(block[0]) * int(block[1]) * int(block[2])
                occ = occupancy.theoretical(rep.registers, threads,
                                            rep.shared_bytes + rep.dynamic_shared_bytes, arch)
                rep.occupancy, rep.occupancy_limited_by = occ.occupancy, occ.limited_by
                rep.blocks_per_sm = occ.blocks_per_sm
        if listings is not None:
            rep.ptx, rep.sass, rep.listing_note = listings.get(str(k.get("key")), (None, None, unlisted))
        out.append(rep)
    return out


def listings_from(answer: dict, scrub=None, cap: int = CAP) -> dict[str, tuple]:
    """{record key: (ptx, sass, note)} from the child's answer, whatever it holds:
    only strings survive, each capped again and scrubbed of the run's paths."""
    def text(value, limit: int = cap + 256) -> str | None:   # room for the child's own cut note
        if not isinstance(value, str):
            return None
        value = cap_text(value, limit)
        return scrub(value) if scrub else value

    programs = answer.get("programs") if isinstance(answer.get("programs"), list) else []
    kernels = answer.get("listed") if isinstance(answer.get("listed"), dict) else {}
    notes = answer.get("unlisted") if isinstance(answer.get("unlisted"), dict) else {}
    out: dict[str, tuple] = {}
    for key, i in kernels.items():
        if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(programs) \
                and isinstance(programs[i], dict):
            p = programs[i]
            out[str(key)] = (text(p.get("ptx")), text(p.get("sass")), text(p.get("note"), NOTE_CAP))
    for key, note in notes.items():
        out.setdefault(str(key), (None, None, text(note, NOTE_CAP)))
    return out

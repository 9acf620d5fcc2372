"""The `sync_fifo` task's checker (the contract in the task's statement)."""
from __future__ import annotations
from collections import deque

from .base import Checker, Mismatch, _entries, _hex


class SyncFifoChecker(Checker):
    """An exact model of `sync_fifo`: full, empty and count always; dout when not empty. Outputs
    read before the edge must still describe the state after the last edge, so an output that
    follows wr_en or rd_en combinationally is caught there."""
    slug = "sync_fifo"

    def __init__(self, params: dict[str, int]):
        super().__init__(params)
        self.width, self.depth = params.get("WIDTH", 8), params.get("DEPTH", 16)
        self.entries: deque | None = None   # (write number since reset, value); None before reset
        self.writes = 0
        self.last = "reset"                 # what the last edge did, for messages
        self.popped: tuple | None = None    # the entry the last edge read
        self.after: dict | None = None      # outputs read after the last edge
        self.before: dict | None = None     # outputs read before this cycle's edge

    def before_edge(self, cycle, inputs, outputs):
        self.before = dict(outputs)
        if self.entries is None or not inputs["rst_n"]:
            return None
        return self._compare(inputs, outputs, before=True)

    def after_edge(self, cycle, inputs, outputs):
        if not inputs["rst_n"]:
            self.entries, self.writes, self.last, self.popped = deque(), 0, "reset", None
        elif self.entries is None:
            return None
        else:
            self._step(inputs)
        mismatch = self._compare(inputs, outputs, before=False)
        self.after = dict(outputs)
        return mismatch

    def _step(self, inputs):
        n, wr, rd = len(self.entries), inputs["wr_en"] & 1, inputs["rd_en"] & 1
        do_wr, do_rd = wr and n < self.depth, rd and n > 0     # both decided on the state before the edge
        self.popped = self.entries.popleft() if do_rd else None
        if do_wr:
            self.writes += 1
            self.entries.append((self.writes, inputs["din"] & ((1 << self.width) - 1)))
        parts = ([("a write" if do_wr else "a write while full (ignored)")] if wr else []) + \
                ([("a read" if do_rd else "a read while empty (ignored)")] if rd else [])
        self.last = f"{' and '.join(parts) or 'no write or read'}, at {n} of {self.depth} entries"

    def _compare(self, inputs, outputs, before):
        n = len(self.entries)
        expected = {"full": int(n == self.depth), "empty": int(n == 0), "count": n}
        for sig, value in expected.items():
            if outputs[sig] != value:
                return Mismatch(sig, str(value), str(outputs[sig]),
                                self._changed(sig, inputs, outputs, before) or self._why(sig, value, n))
        if n and outputs["dout"] != self.entries[0][1]:
            seq, value = self.entries[0]
            why = self._changed("dout", inputs, outputs, before) or (
                f"dout should show the oldest entry, word #{seq} written since reset "
                f"({_hex(value, self.width)}), without waiting for a read (first-word fall-through; "
                f"last edge: {self.last}){self._dout_hint(outputs['dout'], before)}")
            return Mismatch("dout", _hex(value, self.width), _hex(outputs["dout"], self.width), why)
        return None

    def _changed(self, sig, inputs, outputs, before):
        """The sentence for an output that moved between the last edge and this cycle's inputs."""
        if before and self.after is not None and outputs[sig] != self.after[sig]:
            show = (lambda v: _hex(v, self.width)) if sig == "dout" else str
            return (f"{sig} changed from {show(self.after[sig])} to {show(outputs[sig])} when this cycle's inputs "
                    f"were applied (wr_en={inputs['wr_en']}, rd_en={inputs['rd_en']}) with no clock edge; "
                    f"it must describe the stored entries only, not follow the inputs")
        return None

    def _why(self, sig, value, n):
        state = f"(DEPTH={self.depth}; last edge: {self.last})"
        if sig == "full":
            return (f"full should be high with all {self.depth} entries stored {state}" if value else
                    f"full should be low with {n} of {self.depth} entries stored {state}")
        if sig == "empty":
            return (f"empty should be high with no entries stored {state}" if value else
                    f"empty should be low with {_entries(n)} stored {state}")
        return f"count should be {n}, the number of entries stored {state}"

    def _dout_hint(self, actual, before):
        if self.width < 8:      # narrow words coincide too often to name one
            return ""
        if not before and self.popped and actual == self.popped[1]:
            return f"; it still shows word #{self.popped[0]}, read at the last edge, as if dout were registered a cycle late"
        if not before and self.before and actual == self.before["dout"]:
            return "; it kept its value from before the edge, as if dout were registered a cycle late"
        for seq, value in list(self.entries)[1:]:
            if actual == value:
                return f"; it shows word #{seq}, which is not the oldest"
        return ""

    def stimulus(self, rng, cycles):
        depth, mask = self.depth, (1 << self.width) - 1
        seq: list[dict[str, int]] = []

        def add(n, wr, rd, rst_n=1, din=None):
            for _ in range(n):
                seq.append({"rst_n": rst_n, "wr_en": wr, "rd_en": rd,
                            "din": rng.getrandbits(self.width) if din is None else din})

        add(2, 1, 1, rst_n=0)                 # reset wins over both enables
        add(2, 0, 1)                          # read while empty: ignored
        add(1, 1, 1)                          # read and write at empty: only the write
        add(1, 0, 1)
        add(1, 1, 0, din=mask)                # all ones and all zeros through
        add(1, 1, 0, din=0)
        add(depth + 2, 1, 0)                  # fill to full, then writes while full: ignored
        for _ in range(3):
            add(1, 1, 1)                      # read and write at full: only the read
            add(1, 1, 0)                      # refill
        add(depth + 2, 0, 1)                  # drain to empty, then reads while empty
        add(1, 1, 1)                          # read and write at empty, then both at one entry
        add(3, 1, 1)
        add(depth // 2, 1, 0)
        add(min(4 * depth, 128), 1, 1)        # long burst of simultaneous reads and writes
        add(max(1, depth // 4), 1, 0)         # reset in the middle, with entries stored
        add(1, 1, 1, rst_n=0)
        add(2, 0, 1)
        biases = ((0.9, 0.2), (0.2, 0.9), (0.5, 0.5), (0.8, 0.8), (1.0, 0.0), (0.0, 1.0))
        while len(seq) < cycles:              # random segments that swing between full and empty
            p_wr, p_rd = rng.choice(biases)
            for _ in range(min(rng.randint(4, 2 * depth + 4), cycles - len(seq))):
                add(1, int(rng.random() < p_wr), int(rng.random() < p_rd))
        return seq

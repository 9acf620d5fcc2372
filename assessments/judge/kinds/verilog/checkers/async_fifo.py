"""The `async_fifo` task's checker (the contract in the task's statement)."""
from __future__ import annotations

import bisect
from collections import deque

from .base import Checker, Mismatch, _hex
from .clocks import Edge, timeline

LATE = 6        # edges of its own clock a flag may stay high after the other side changed the count
RESET_EDGES = 3  # edges of each clock a reset is held for, at least


class AsyncFifoChecker(Checker):
    """A scoreboard for `async_fifo`, edge by edge in time order (`stimulus` gives clocks.Edge).
    The flags' timing depends on the synchronizers, so there is no exact model: just before every
    edge of its own clock each output is checked against the words written and read so far.
    Before a `wclk` edge: `wfull` high while the FIFO is full, and low once there has been room
    for more than LATE write edges. Before an `rclk` edge: `rempty` high while it is empty, low
    once the oldest unread word has waited more than LATE read edges, and `rdata` the oldest
    unread word while `rempty` is low. The edge then writes or reads as the flags said."""
    slug = "async_fifo"

    def __init__(self, params: dict[str, int]):
        super().__init__(params)
        self.width, self.addr_w = params.get("WIDTH", 8), params.get("ADDR_W", 4)
        self.depth = 1 << self.addr_w
        self.edges: list[Edge] = []
        self.words: deque | None = None   # unread words (number, value, wclk cycle, time); None before a reset
        self.written = 0                  # words written since the reset
        self.read_at: dict[int, tuple] = {}   # word number -> (rclk cycle, time) of its read
        self.history: deque = deque(maxlen=64)   # words read lately, for hints
        self.refused: dict[int, int] = {}  # value offered while wfull was high -> its wclk cycle
        self.running: dict[str, list] = {"wclk": [], "rclk": []}   # times of edges with both resets released
        self.started = 0.0                # when both resets were last released (just before an edge)
        self.flags: dict | None = None    # outputs before this edge

    # ---- judging --------------------------------------------------------------------------------
    def before_edge(self, cycle, inputs, outputs):
        edge = self.edges[cycle]
        self.flags = dict(outputs)
        if self.words is None or not (inputs["wrst_n"] or inputs["rrst_n"]):
            return None
        if inputs["wrst_n"] and inputs["rrst_n"]:
            if not self.running["wclk"] and not self.running["rclk"]:
                self.started = edge.time - 0.5
            self.running[edge.clock].append(edge.time)
        if edge.clock == "wclk" and inputs["wrst_n"]:
            return self._write_side(edge, outputs)
        if edge.clock == "rclk" and inputs["rrst_n"]:
            return self._read_side(edge, outputs)
        return None

    def _waited(self, clock: str, since: float) -> int:
        """Edges of `clock` with both resets released after `since`, this one included."""
        times = self.running[clock]
        return len(times) - bisect.bisect_right(times, max(since, self.started))

    def _write_side(self, edge, outputs):
        n, full = len(self.words), outputs["wfull"]
        if n == self.depth and not full:
            oldest = self.words[0]
            return Mismatch("wfull", "1", "0",
                            f"the FIFO holds all {self.depth} words (the oldest unread, word #{oldest[0]}, written at "
                            f"wclk cycle {oldest[2]}), so wfull must be high: a write now would overwrite a word "
                            f"not yet read")
        if n < self.depth and full:
            room = self.written + 1 - self.depth      # the word whose read made room for the next write
            since, why = self.started, "since the reset"
            if room >= 1 and room in self.read_at:
                rc, rt = self.read_at[room]
                if rt > since:
                    since, why = rt, f"since word #{room} was read at rclk cycle {rc} (t={rt} ns)"
            waited = self._waited("wclk", since)
            if waited > LATE:
                hint = ("; it holds one word less than 2**ADDR_W: as if full came one word early"
                        if n == self.depth - 1 else "")
                return Mismatch("wfull", "0", "1",
                                f"the FIFO holds {n} of {self.depth} words, with room {why}, {waited} wclk edges "
                                f"ago: wfull may stay high at most {LATE} edges after a read makes room{hint}")
        return None

    def _read_side(self, edge, outputs):
        if not self.words:
            if not outputs["rempty"]:
                last = ("no word has been written since the reset" if not self.written else
                        "the one word written since the reset has been read" if self.written == 1 else
                        f"all {self.written} words written since the reset have been read")
                if self.written and self.history:
                    num, _, rc = self.history[-1]
                    last += f" (the last, word #{num}, at rclk cycle {rc})"
                return Mismatch("rempty", "1", "0", f"the FIFO is empty: {last}; rempty must never be low while "
                                                    f"there is nothing to read")
            return None
        num, value, wc, wt = self.words[0]
        if outputs["rempty"]:
            waited = self._waited("rclk", wt)
            if waited > LATE:
                return Mismatch("rempty", "0", "1",
                                f"word #{num} ({_hex(value, self.width)}), written at wclk cycle {wc} (t={wt} ns), has "
                                f"waited {waited} rclk edges with rempty high: rempty may stay high at most {LATE} "
                                f"edges after a write")
            return None
        if outputs["rdata"] != value:
            return Mismatch("rdata", _hex(value, self.width), _hex(outputs["rdata"], self.width),
                            f"with rempty low, rdata should be word #{num}, written at wclk cycle {wc} (t={wt} ns), "
                            f"the oldest not yet read (first-word fall-through){self._hint(outputs['rdata'])}")
        return None

    def _hint(self, actual: int) -> str:
        if self.width < 8:      # narrow words coincide too often to name one
            return ""
        if self.history and self.history[-1][1] == actual:
            num, _, rc = self.history[-1]
            return f"; it still shows word #{num}, read at rclk cycle {rc}, as if rdata were registered one read late"
        for num, value, _, _ in list(self.words)[1:]:
            if value == actual:
                return f"; it shows word #{num}, which is not the oldest: a word was skipped"
        if actual in self.refused:
            return (f"; it shows the word offered at wclk cycle {self.refused[actual]} while wfull was high: a "
                    f"write while full must be ignored")
        for num, value, rc in reversed(self.history):
            if value == actual:
                return f"; it shows word #{num}, already read at rclk cycle {rc}: the read side wraps at the wrong place"
        return ""

    # ---- the state after each edge ----------------------------------------------------------------
    def after_edge(self, cycle, inputs, outputs):
        edge = self.edges[cycle]
        if not inputs["wrst_n"] and not inputs["rrst_n"]:
            self.words, self.written, self.read_at, self.refused = deque(), 0, {}, {}
            self.history.clear()
            self.running = {"wclk": [], "rclk": []}
            return None
        if self.words is None or self.flags is None:
            return None
        if edge.clock == "wclk" and inputs["wrst_n"] and inputs["winc"]:
            value = inputs["wdata"] & ((1 << self.width) - 1)
            if self.flags["wfull"]:
                self.refused[value] = edge.cycle
            else:
                self.written += 1
                self.words.append((self.written, value, edge.cycle, edge.time))
                self.refused.pop(value, None)
        elif edge.clock == "rclk" and inputs["rrst_n"] and inputs["rinc"] and not self.flags["rempty"] and self.words:
            num, value, _, _ = self.words.popleft()
            self.read_at[num] = (edge.cycle, edge.time)
            self.history.append((num, value, edge.cycle))
        return None

    # ---- stimulus ---------------------------------------------------------------------------------
    def stimulus(self, rng, cycles):
        """clocks.Edge per edge of wclk and rclk, in time order: a reset, directed phases kept whole,
        then random traffic up to `cycles` edges in all. Each side's inputs change only just before
        its own clock's edges; both resets are asserted together, at any edge."""
        clock = timeline(rng, ("wclk", "rclk"), max(cycles // 3, 100))
        state = {"wrst_n": 1, "winc": 0, "wdata": 0, "rrst_n": 1, "rinc": 0}
        count = {"wclk": 0, "rclk": 0}
        edges: list[Edge] = []

        def step(p_w: float, p_r: float) -> str:
            time, name = next(clock)
            if name == "wclk":
                state["winc"], state["wdata"] = int(rng.random() < p_w), rng.getrandbits(self.width)
            else:
                state["rinc"] = int(rng.random() < p_r)
            edges.append(Edge(name, count[name], time, dict(state)))
            count[name] += 1
            return name

        def run(p_w: float, p_r: float, name: str, n: int) -> None:
            """Until `name` has had n more edges."""
            target = count[name] + n
            while count[name] < target:
                step(p_w, p_r)

        def reset() -> None:
            state["wrst_n"] = state["rrst_n"] = 0        # asserted just before the next edge, either clock
            hold = {c: count[c] + RESET_EDGES + rng.randint(0, 2) for c in count}
            while not (state["wrst_n"] and state["rrst_n"]):
                time, name = next(clock)
                if count[name] >= hold[name]:
                    state["wrst_n" if name == "wclk" else "rrst_n"] = 1    # released just before its own edge
                if name == "wclk":
                    state["winc"], state["wdata"] = rng.randint(0, 1), rng.getrandbits(self.width)
                else:
                    state["rinc"] = rng.randint(0, 1)
                edges.append(Edge(name, count[name], time, dict(state)))
                count[name] += 1

        depth = self.depth
        reset()
        run(1.0, 0.0, "wclk", depth + LATE + 4)      # fill to full, then writes while full (ignored)
        run(0.0, 1.0, "rclk", depth + LATE + 4)      # drain to empty, then reads while empty
        run(1.0, 1.0, "wclk", 2 * depth + 16)        # both at every edge
        run(1.0, 0.3, "wclk", depth + 8)             # a fast writer, a slow reader: full, room one word at a time
        run(0.3, 1.0, "rclk", depth + 8)             # and the other way round
        run(1.0, 0.0, "wclk", depth // 2 + 1)        # a reset with words stored
        reset()
        run(0.0, 1.0, "rclk", LATE + 4)              # nothing may come out after it
        biases = ((0.9, 0.2), (0.2, 0.9), (0.5, 0.5), (0.8, 0.8), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0))
        while len(edges) < cycles:
            if rng.random() < 0.02:
                reset()
            p_w, p_r = rng.choice(biases)
            run(p_w, p_r, rng.choice(("wclk", "rclk")), rng.randint(4, 2 * depth + 8))
        self.edges = edges
        return edges

"""A built model driven cycle by cycle (verilator_build.py's library, loaded with ctypes): what
the run sandbox's child does with a design. Standard library only.

Each cycle: the cycle's inputs are applied with the clock low and the model evaluated (the
outputs read then are "before the edge"), then the clock rises and the outputs are read again
("after the edge"). `probes` are input variations applied before the edge without a clock, to
see outputs that follow inputs combinationally. A design with several clocks gets `edges`, the
clock that rises at each cycle (the edges of all its clocks in time order); the others keep
their level, and an input such as an asynchronous reset acts when it is applied, before the edge.
"""
from __future__ import annotations

import ctypes


class ModelError(Exception):
    """The model stopped (`$finish`, `$stop`, an assertion) or cannot be driven."""


class Model:
    def __init__(self, library: str, ports: list[dict]):
        self._lib = ctypes.CDLL(library)
        for name, res, args in (("kp_new", ctypes.c_void_p, []),
                                ("kp_free", None, [ctypes.c_void_p]),
                                ("kp_eval", ctypes.c_int, [ctypes.c_void_p]),
                                ("kp_set", None, [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64]),
                                ("kp_get", ctypes.c_uint64, [ctypes.c_void_p, ctypes.c_int])):
            fn = getattr(self._lib, name)
            fn.restype, fn.argtypes = res, args
        self.ports = ports
        self.index = {p["name"]: i for i, p in enumerate(ports)}
        self.masks = {p["name"]: (1 << p["width"]) - 1 for p in ports}
        self.outputs = [p["name"] for p in ports if p["direction"] == "output"]
        self._sim = self._lib.kp_new()

    def set(self, name: str, value: int) -> None:
        self._lib.kp_set(self._sim, self.index[name], int(value) & self.masks[name])

    def get(self, name: str) -> int:
        return int(self._lib.kp_get(self._sim, self.index[name])) & self.masks[name]

    def eval(self) -> None:
        if self._lib.kp_eval(self._sim):
            raise ModelError("the design called $finish or $stop")

    def read(self) -> dict[str, int]:
        return {name: self.get(name) for name in self.outputs}

    def close(self) -> None:
        if self._sim:
            self._lib.kp_free(self._sim)
            self._sim = None


def simulate(model: Model, clock: str, cycles: list[dict], probes: dict | None = None,
             edges: list[str] | None = None) -> list[dict]:
    """[{"before": outputs, "after": outputs, "probed": [outputs per variation]}] per cycle."""
    out = []
    for c, inputs in enumerate(cycles):
        rising = edges[c] if edges else clock
        model.set(rising, 0)
        for name, value in inputs.items():
            model.set(name, value)
        model.eval()
        row = {"before": model.read()}
        variations = (probes or {}).get(c)
        if variations:
            row["probed"] = []
            for variation in variations:
                for name, value in variation.items():
                    model.set(name, value)
                model.eval()
                row["probed"].append(model.read())
            for name, value in inputs.items():   # back to the cycle's own inputs
                model.set(name, value)
            model.eval()
        model.set(rising, 1)
        model.eval()
        row["after"] = model.read()
        out.append(row)
    return out

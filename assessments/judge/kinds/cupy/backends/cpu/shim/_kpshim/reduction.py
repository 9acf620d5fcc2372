"""cupy.ReductionKernel: one block per output element, a shared-memory tree over REDUCE(a, b)."""
from __future__ import annotations

import numpy

from . import array, params, profiling
from .elementwise import _check_arg, _is_array, device_view
from .generated import GeneratedKernel

MAX_BLOCK = 256
MIN_BLOCK = 32
MAX_GRID = 65535


def normalize_axis(axis, ndim: int) -> tuple[tuple, tuple]:
    if axis is None:
        return tuple(range(ndim)), ()
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    for dim in axes:
        if dim < -ndim or dim >= ndim:
            raise numpy.exceptions.AxisError("Axis overrun")
    reduce_axis = tuple(sorted(dim % ndim for dim in axes))
    return reduce_axis, tuple(d for d in range(ndim) if d not in reduce_axis)


class ReductionKernel:
    """User-defined reduction: map_expr per element, REDUCE over the axes, post_map_expr."""

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                 name="reduce_kernel", reduce_type=None, reduce_dims=True, preamble="",
                 options=()):
        if not params.is_valid_kernel_name(name):
            raise ValueError(f'Invalid kernel name: "{name}"')
        self.in_params = params.parse(in_params, True)
        self.out_params = params.parse(out_params, False)
        self.nin = len(self.in_params)
        self.nout = len(self.out_params)
        self.nargs = self.nin + self.nout
        self.params = self.in_params + self.out_params
        self.map_expr = map_expr
        self.reduce_expr = reduce_expr
        self.post_map_expr = post_map_expr
        self.identity = "" if identity is None else str(identity)
        self.name = self.__name__ = name
        self.reduce_type = self.out_params[0].ctype if reduce_type is None else reduce_type
        self.reduce_dims = reduce_dims
        self.preamble = preamble
        self.options = tuple(options)
        if any(p.raw for p in self.params):
            raise NotImplementedError("raw parameters in ReductionKernel are not supported on "
                                      "the CPU backend")
        self._kernels: dict = {}

    def __call__(self, *args, **kwargs):
        out = kwargs.pop("out", None)
        axis = kwargs.pop("axis", None)
        keepdims = kwargs.pop("keepdims", False)
        kwargs.pop("stream", None)
        if kwargs:
            raise TypeError(f"Wrong arguments {kwargs}")
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(f"Wrong number of arguments for {self.name}")
        out_args = list(args[self.nin:])
        if out is not None:
            if self.nout != 1:
                raise NotImplementedError("")
            if out_args:
                raise ValueError("cannot specify 'out' as both a positional and keyword "
                                 "argument")
            out_args = [out]
        in_args = list(args[:self.nin])
        for a in in_args + out_args:
            _check_arg(a)
        arrays = [a for a in in_args if _is_array(a)]
        if not arrays:
            raise ValueError("Loop size is undecided.")
        shape = numpy.broadcast_shapes(*(a.shape for a in arrays))
        reduce_axis, out_axis = normalize_axis(axis, len(shape))
        if keepdims:
            out_shape = tuple(1 if d in reduce_axis else s for d, s in enumerate(shape))
        else:
            out_shape = tuple(shape[d] for d in out_axis)

        in_dtypes = [a.dtype if _is_array(a) else None for a in in_args]
        out_dtypes = [a.dtype for a in out_args if _is_array(a)]
        if out_args and len(out_dtypes) != len(out_args):
            raise TypeError("Output arguments type must be cupy.ndarray")
        in_types, out_types, bound = params.decide_types(
            self.in_params, self.out_params, in_dtypes, out_dtypes)
        if out_args:
            for a in out_args:
                if a.shape != out_shape:
                    raise ValueError("Out shape is mismatched")
        else:
            out_args = [array.empty(out_shape, t) for t in out_types]
        ret = out_args[0] if self.nout == 1 else tuple(out_args)

        nout = int(numpy.prod([shape[d] for d in out_axis], dtype=numpy.int64))
        nred = int(numpy.prod([shape[d] for d in reduce_axis], dtype=numpy.int64))
        if nout == 0:
            return ret
        perm = out_axis + reduce_axis
        kargs, infos = [], []
        for k, a in enumerate(in_args):
            if not _is_array(a):
                value = numpy.dtype(in_types[k]).type(a)
                kargs.append(value)
                infos.append(("scalar", value.dtype))
                continue
            src = numpy.broadcast_to(a.view(numpy.ndarray), shape).transpose(perm)
            dev = array.empty((nout, nred), a.dtype)
            dev[...] = src.reshape(nout, nred)
            kargs.append(dev)
            infos.append(("array", dev.dtype))
        copy_back = []
        for a in out_args:
            dev, back = device_view(a)
            if back:
                copy_back.append((a, dev))
            kargs.append(dev.reshape(nout))
            infos.append(("array", dev.dtype))
        kargs.append((nout * nred, (nout, nred)))
        kargs.append((nout, (nout,)))

        key = (tuple(infos), tuple(sorted(bound.items())))
        kernel = self._kernels.get(key)
        if kernel is None:
            kernel = self._kernels[key] = GeneratedKernel(
                "ReductionKernel", self.name, self._source(infos, bound), self.options)
        block = MIN_BLOCK
        while block < min(nred, MAX_BLOCK):
            block *= 2
        if profiling.active() is not None:
            # CuPy reduces with its own multi-block kernels, not this one-block-per-output
            # stand-in: the profile counts the reduction by its bytes and does not run it
            ins = sum(a.nbytes for a in kargs[:len(kargs) - 2] if isinstance(a, numpy.ndarray))
            profiling.library_op(f"ReductionKernel {self.name}", ins, nout * 8)
        else:
            kernel.launch((min(nout, MAX_GRID),), (block,), kargs)
        for dst, dev in copy_back:
            dst[...] = dev
        return ret

    def _source(self, infos, bound) -> str:
        decls, loads, stores = [], [], []
        for k, (p, info) in enumerate(zip(self.params, infos)):
            if k < self.nin:
                if info[0] == "scalar":
                    decls.append(f"const {params.c_typename(info[1])} {p.name}")
                    continue
                decls.append(f"const CArray<{params.c_typename(info[1])}, 2, 1, 1> _raw_{p.name}")
                loads.append(f"const {p.ctype} {p.name} = _raw_{p.name}[_in_ind.get()];")
            else:
                decls.append(f"CArray<{params.c_typename(info[1])}, 1, 1, 1> _raw_{p.name}")
                stores.append(f"{p.ctype} &{p.name} = _raw_{p.name}[_out_ind.get()];")
        decls += ["CIndexer<2> _in_ind", "CIndexer<1> _out_ind"]
        identity = self.identity
        loads_text = "\n      ".join(loads)
        stores_text = "\n      ".join(stores)
        return f"""{params.typedefs(bound)}{self.preamble}
#define REDUCE(a, b) ({self.reduce_expr})
#define POST_MAP(a) ({self.post_map_expr})
typedef {self.reduce_type} _type_reduce;
extern "C" __global__ void {self.name}({", ".join(decls)}) {{
  __shared__ _type_reduce _sdata[{MAX_BLOCK}];
  const ptrdiff_t _nred = _out_ind.size() > 0 ? _in_ind.size() / _out_ind.size() : 0;
  const unsigned int _tid = threadIdx.x;
  for (ptrdiff_t _i = blockIdx.x; _i < _out_ind.size(); _i += gridDim.x) {{
    _type_reduce _s = _type_reduce({identity});
    for (ptrdiff_t _J = _tid; _J < _nred; _J += blockDim.x) {{
      _in_ind.set(_i * _nred + _J);
      {loads_text}
      _type_reduce _a = static_cast<_type_reduce>({self.map_expr});
      _s = REDUCE(_s, _a);
    }}
    _sdata[_tid] = _s;
    __syncthreads();
    for (unsigned int _block = blockDim.x / 2; _block > 0; _block >>= 1) {{
      if (_tid < _block) {{
        _type_reduce _a = _sdata[_tid], _b = _sdata[_tid + _block];
        _sdata[_tid] = REDUCE(_a, _b);
      }}
      __syncthreads();
    }}
    if (_tid == 0) {{
      _out_ind.set(_i);
      {stores_text}
      _s = _sdata[0];
      POST_MAP(_s);
    }}
    __syncthreads();
  }}
}}
"""


ReductionKernel.__module__ = "cupy"

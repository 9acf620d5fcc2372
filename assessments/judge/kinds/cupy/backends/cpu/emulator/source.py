"""Reading the preprocessed candidate source: kernels, their parameters, `__shared__` rewrites.

Works on `g++ -E` output, so macros are already expanded. The runtime header turns
`__global__` into `__attribute__((kp_global))` and `__shared__` into
`static __attribute__((kp_shared))`, which makes both easy to find here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

CANDIDATE_FILE = "kernel.cu"

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<id>[A-Za-z_]\w*)
  | (?P<num>\.?\d(?:[\w.]|[eEpP][+-])*)
  | (?P<op>::|->|<<=|>>=|[-+*/%&|^!=<>]=|&&|\|\||\+\+|--|<<|\.\.\.|.)
""", re.X | re.S)

_MARKER_LINE = re.compile(r'^#\s*(\d+)\s+"((?:[^"\\]|\\.)*)"[^\n]*$', re.M)
GLOBAL_MARK = ("__attribute__", "(", "(", "kp_global", ")", ")")
DEVICE_MARK = ("__attribute__", "(", "(", "kp_device", ")", ")")
DEVGLOBAL_SECTION = '__attribute__((section("kp_devglobals")))'
SHARED_MARK = ("static", "__attribute__", "(", "(", "kp_shared", ")", ")")


@dataclass
class Tok:
    text: str
    start: int
    end: int
    kind: str


@dataclass
class KernelDecl:
    name: str                 # unqualified
    qualified: str            # with enclosing namespaces, usable from global scope
    is_template: bool
    is_extern_c: bool
    params: list = field(default_factory=list)  # [(name, text)]
    is_definition: bool = False


def candidate_spans(pp: str) -> list[tuple[int, int]]:
    """Character ranges of the preprocessed text that come from the candidate's file."""
    spans, cur_start, cur_is_cand = [], 0, False
    for m in _MARKER_LINE.finditer(pp):
        if cur_is_cand and m.start() > cur_start:
            spans.append((cur_start, m.start()))
        cur_is_cand = m.group(2).rsplit("/", 1)[-1] == CANDIDATE_FILE
        cur_start = m.end()
    if cur_is_cand and cur_start < len(pp):
        spans.append((cur_start, len(pp)))
    return spans


def tokenize(pp: str, spans) -> list[Tok]:
    """Tokens of the candidate's parts, skipping directives that survive preprocessing."""
    toks: list[Tok] = []
    for lo, hi in spans:
        pos = lo
        at_line_start = True
        while pos < hi:
            if at_line_start:
                j = pos
                while j < hi and pp[j] in " \t":
                    j += 1
                if j < hi and pp[j] == "#":  # #pragma and friends: not code
                    nl = pp.find("\n", j)
                    pos = hi if nl < 0 or nl > hi else nl + 1
                    continue
            m = _TOKEN.match(pp, pos, hi)
            if not m:
                break
            kind = m.lastgroup
            text = m.group()
            if kind == "ws":
                at_line_start = "\n" in text
            else:
                at_line_start = False
                toks.append(Tok(text, m.start(), m.end(), kind))
            pos = m.end()
    return toks


def _match(toks, i, pattern) -> bool:
    return all(i + k < len(toks) and toks[i + k].text == p for k, p in enumerate(pattern))


def _close(toks, i, open_t="(", close_t=")") -> int:
    """Index of the token closing the bracket opened at toks[i]."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text == open_t:
            depth += 1
        elif toks[j].text == close_t:
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


def _skip_attributes(toks, i) -> int:
    while i < len(toks) and toks[i].text in ("__attribute__", "__declspec", "alignas") and \
            i + 1 < len(toks) and toks[i + 1].text == "(":
        i = _close(toks, i + 1) + 1
    return i


def split_top_level(toks: list[Tok], sep: str = ",") -> list[list[Tok]]:
    """Split a token list at `sep` outside (), [], {} and template <>."""
    out, cur, depth, angle = [], [], 0, 0
    for t in toks:
        if t.text in "([{":
            depth += 1
        elif t.text in ")]}":
            depth -= 1
        elif t.text == "<" and depth == 0 and cur and cur[-1].kind == "id":
            angle += 1
        elif t.text == ">" and depth == 0 and angle:
            angle -= 1
        elif t.text == ">>" and depth == 0 and angle:
            angle = max(0, angle - 2)
        if t.text == sep and depth == 0 and angle == 0:
            out.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        out.append(cur)
    return out


def _param(pp: str, toks: list[Tok], index: int) -> tuple[str, str]:
    """(name, declaration text) of one parameter; unnamed ones get argN."""
    eq = next((k for k, t in enumerate(toks) if t.text == "="), len(toks))
    toks = toks[:eq]
    text = " ".join(pp[toks[0].start:toks[-1].end].split()) if toks else ""
    ids = [t for t in toks if t.kind == "id"]
    name = f"arg{index}"
    if len(ids) >= 2 and toks[-1].kind == "id" and toks[-1].text not in (
            "__restrict__", "__restrict", "const", "volatile", "int", "float", "double", "char",
            "short", "long", "unsigned", "signed", "bool"):
        name = toks[-1].text
    elif toks and toks[-1].text == "]":  # array parameter: name before the brackets
        k = next((k for k in range(len(toks)) if toks[k].text == "["), None)
        if k and toks[k - 1].kind == "id":
            name = toks[k - 1].text
    return name, text


def find_kernels(pp: str) -> list[KernelDecl]:
    """Every __global__ function of the candidate, with its namespace and parameters."""
    toks = tokenize(pp, candidate_spans(pp))
    scopes: list[tuple[str, str]] = []   # (kind, name): ns, externc, other
    stmt_start = 0
    found: dict[str, KernelDecl] = {}
    i = 0
    while i < len(toks):
        t = toks[i].text
        if t == "{":
            head = [x.text for x in toks[stmt_start:i]]
            head = [h for h in head if h != "inline"]
            if head and head[0] == "namespace":
                name = "::".join(h for h in head[1:] if h != "::" and not h.startswith("__attribute__"))
                scopes.append(("ns", name))
            elif head[:2] == ["extern", '"C"'] and len(head) == 2:
                scopes.append(("externc", ""))
            else:
                scopes.append(("other", ""))
            stmt_start = i + 1
        elif t == "}":
            if scopes:
                scopes.pop()
            stmt_start = i + 1
        elif t == ";":
            stmt_start = i + 1
        elif t == "__attribute__" and _match(toks, i, GLOBAL_MARK) and \
                all(k != "other" for k, _ in scopes):
            decl = _kernel_at(pp, toks, i, stmt_start, scopes)
            if decl is not None:
                prev = found.get(decl.qualified)
                if prev is None or (decl.is_definition and not prev.is_definition):
                    found[decl.qualified] = decl
            i += len(GLOBAL_MARK)
            continue
        i += 1
    return list(found.values())


def _kernel_at(pp, toks, i, stmt_start, scopes) -> KernelDecl | None:
    head = [x.text for x in toks[stmt_start:i]]
    j = _skip_attributes(toks, i)
    while j < len(toks) and toks[j].text != "(":
        if toks[j].text in ("__attribute__", "alignas"):
            j = _skip_attributes(toks, j)
            continue
        if toks[j].text in (";", "{", "}"):
            return None
        j += 1
    if j >= len(toks) or toks[j - 1].kind != "id":
        return None
    name = toks[j - 1].text
    close = _close(toks, j)
    params = [_param(pp, p, k) for k, p in enumerate(split_top_level(toks[j + 1:close]))]
    if len(params) == 1 and params[0][1] in ("void", ""):
        params = []
    k = close + 1
    while k < len(toks) and toks[k].text not in ("{", ";"):
        k += 1
    ns = [n for kind, n in scopes if kind == "ns" and n]
    return KernelDecl(
        name=name,
        qualified="::".join(ns + [name]),
        is_template="template" in head,
        is_extern_c=('"C"' in head and "extern" in head) or any(k == "externc" for k, _ in scopes),
        params=params,
        is_definition=k < len(toks) and toks[k].text == "{",
    )


# ---- __shared__ declarations -------------------------------------------------------------------
@dataclass
class Rewrite:
    start: int
    end: int
    text: str


def _declarators(toks: list[Tok]):
    """(align expression or None, type tokens, [(name, dims text, stars)]) or None if unusual."""
    align = None
    rest: list[Tok] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.text in ("static", "extern"):
            i += 1
            continue
        if t.text == "__attribute__" and i + 1 < len(toks) and toks[i + 1].text == "(":
            c = _close(toks, i + 1)
            inner = toks[i + 2:c]
            if len(inner) >= 3 and inner[1].text == "aligned":
                align = " ".join(x.text for x in inner[3:-2]) or None
            elif not (len(inner) == 3 and inner[1].text == "kp_shared"):
                return None
            i = c + 1
            continue
        if t.text == "alignas" and i + 1 < len(toks) and toks[i + 1].text == "(":
            c = _close(toks, i + 1)
            align = " ".join(x.text for x in toks[i + 2:c])
            i = c + 1
            continue
        rest.append(t)
        i += 1
    if any(t.text in ("=", "{", "(", "operator") for t in rest):
        return None
    parts = split_top_level(rest)
    if not parts:
        return None
    first = parts[0]
    k = next((n for n, t in enumerate(first) if t.text == "["), len(first))
    if k == 0 or first[k - 1].kind != "id" or k - 1 == 0:
        return None
    type_toks = first[:k - 1]
    base = list(type_toks)
    while base and base[-1].text in ("*", "&"):
        base.pop()
    decls = [(first[k - 1].text, " ".join(x.text for x in first[k:]), "")]
    for p in parts[1:]:
        stars = ""
        while p and p[0].text == "*":
            stars += "*"
            p = p[1:]
        kk = next((n for n, t in enumerate(p) if t.text == "["), len(p))
        if kk != 1 or p[0].kind != "id":
            return None
        decls.append((p[0].text, " ".join(x.text for x in p[1:]), stars))
    first_stars = "".join(t.text for t in type_toks[len(base):])
    decls[0] = (decls[0][0], decls[0][1], first_stars)
    return align, " ".join(t.text for t in base), decls


def shared_rewrites(pp: str) -> list[Rewrite]:
    """Replacements for the candidate's __shared__ declarations (same number of lines).

    Static ones become references to storage the runtime owns (poisoned per block, bounds known),
    `extern __shared__ T x[]` becomes a pointer to the launch's dynamic shared memory.
    """
    toks = tokenize(pp, candidate_spans(pp))
    out: list[Rewrite] = []
    i = 0
    while i < len(toks):
        if not _match(toks, i, SHARED_MARK):
            i += 1
            continue
        s = i
        while s > 0 and toks[s - 1].text not in (";", "{", "}", ")", ":"):
            s -= 1
        if s > 0 and toks[s - 1].text in (")", ":"):  # for-init, case label, ...: leave alone
            i += len(SHARED_MARK)
            continue
        e = i
        depth = 0
        while e < len(toks):
            x = toks[e].text
            if x in "([{":
                depth += 1
            elif x in ")]}":
                depth -= 1
            elif x == ";" and depth == 0:
                break
            e += 1
        if e >= len(toks):
            break
        stmt = toks[s:e]
        is_extern = any(t.text == "extern" for t in stmt)
        parsed = _declarators(stmt)
        i = e + 1
        if parsed is None:
            continue
        align, base, decls = parsed
        pieces = []
        for name, dims, stars in decls:
            ctype = f"{base}{' ' + stars if stars else ''}"
            if is_extern:
                if dims.replace(" ", "") != "[]":
                    pieces = None
                    break
                pieces.append(f"{ctype} * const {name} = reinterpret_cast< {ctype} * >(::kp::kp_dyn_smem);")
            else:
                al = f"(size_t)({align})" if align else "0"
                if dims:
                    pieces.append(f"static {ctype} (& {name}) {dims} = "
                                  f"*::kp::shared_var< {ctype} {dims} >({al}, \"{name}\");")
                else:
                    pieces.append(f"static {ctype} & {name} = *::kp::shared_var< {ctype} >({al}, \"{name}\");")
        if not pieces:
            continue
        start, end = stmt[0].start, toks[e].end
        text = " ".join(pieces) + "\n" * pp.count("\n", start, end)
        out.append(Rewrite(start, end, text))
    return out


def device_variable_rewrites(pp: str) -> list[Rewrite]:
    """Namespace-scope __device__ variables go to one section (skipping anything unusual)."""
    toks = tokenize(pp, candidate_spans(pp))
    out: list[Rewrite] = []
    depth_other = 0
    scopes: list[str] = []
    stmt_start = 0
    i = 0
    while i < len(toks):
        t = toks[i].text
        if t == "{":
            head = [x.text for x in toks[stmt_start:i] if x.text != "inline"]
            kind = "ns" if head[:1] == ["namespace"] or head == ["extern", '"C"'] else "other"
            scopes.append(kind)
            depth_other += kind == "other"
            stmt_start = i + 1
        elif t == "}":
            if scopes:
                depth_other -= scopes.pop() == "other"
            stmt_start = i + 1
        elif t == ";":
            stmt_start = i + 1
        elif depth_other == 0 and _match(toks, i, DEVICE_MARK):
            head = {x.text for x in toks[stmt_start:i]}
            j = i + len(DEVICE_MARK)
            first = None
            k = j
            while k < len(toks):
                x = toks[k].text
                if x in ("(", "=", ";", "{", "[", ","):
                    first = x
                    break
                k += 1
            decl = {x.text for x in toks[stmt_start:k]}
            if first in ("=", ";", "[", ",") and not (head | decl) & {
                    "extern", "const", "constexpr", "template", "typedef", "using", "inline", "thread_local",
                    "__shared__", "kp_shared", "kp_global"}:
                end = toks[i + len(DEVICE_MARK) - 1].end
                out.append(Rewrite(end, end, " " + DEVGLOBAL_SECTION + " "))
            i += len(DEVICE_MARK)
            continue
        i += 1
    return out


def apply_rewrites(pp: str, rewrites: list[Rewrite]) -> str:
    parts, pos = [], 0
    for r in sorted(rewrites, key=lambda r: r.start):
        parts.append(pp[pos:r.start])
        parts.append(r.text)
        pos = r.end
    parts.append(pp[pos:])
    return "".join(parts)


def uses_fences(source: str) -> bool:
    """Kernels that order blocks themselves (fence + flag/counter) read other blocks' writes."""
    return "__threadfence" in source or "cuda::atomic" in source or "atomic_thread_fence" in source


def has_inline_asm(source: str) -> bool:
    return re.search(r"\basm\s*(volatile\s*)?\(|\b__asm__\b", source) is not None

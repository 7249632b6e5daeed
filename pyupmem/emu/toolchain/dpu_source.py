#!/usr/bin/env python3
"""The compiler proper (cc1, cc1plus) of DPU program builds for the pyupmem emulator: the
source as the DPU's compiler (UPMEM's clang) reads it, for gcc: ``long`` with the DPU's 64
bits, and clang's loop-unrolling pragmas.

UPMEM's DPU compiler has 32-bit pointers, ``int`` and ``size_t`` but a 64-bit, 8-aligned
``long`` (its clang target: ``LongWidth = LongAlign = 64``; the SDK's ``stdint.h`` makes
``uint64_t`` an ``unsigned long``). gcc's x32 mode gives the first three and a 32-bit
``long``, with no option to widen it. So DPU programs are built with ``-no-integrated-cpp
-fdirectives-only`` and this script first on gcc's tool path (``-B``): it takes the source
after its directives were handled (includes done, macros defined but not yet expanded)
before gcc's own compiler proper sees it, and rewrites, in the code and in macro bodies,

- a ``long`` that is the only one among its type specifiers (not ``long long``, not
  ``long double``) to ``_L64``, a macro for ``long long`` (which x32 lays out as the DPU
  lays out its ``long``) of the same length, so diagnostics keep their columns;
- the single ``L`` suffix of an integer constant (``1L``, ``0xffUL``, ``2lu``) to ``LL``;
- the ``l`` length of a conversion (``%ld``, ``%lu``, ``%lx``) in a literal format string of
  a ``printf`` call to ``ll``, so gcc's format checks see the types the arguments now have
  (a format that reaches ``printf`` through a macro keeps its ``%ld``: gcc then warns, and
  the DPU's ``printf`` reads 64 bits all the same);
- a variable attribute of the DPU's (``__mram``, ``__mram_noinit``, ``__host``,
  ``__dma_aligned``) right after a pointer's ``*`` (``uint32_t *__mram_noinit table[2048];``):
  UPMEM's clang applies its alignment and section to the variable, gcc to the pointer type
  (and refuses an array of 4-byte pointers aligned to 8), so the attribute's address space
  stays there and its declaration part (``__DPURT_..._ATTRIBUTES``, attributes.h) moves after
  the declarator;
- clang's ``#pragma unroll``, ``#pragma unroll N``, ``#pragma nounroll`` and ``#pragma clang
  loop unroll(full|disable|enable)`` / ``unroll_count(N)``, which PrIM's kernels use, to
  gcc's ``#pragma GCC unroll``, so the loop is unrolled as on a DPU (which the cost counting
  sees) and gcc does not warn about an unknown pragma.

Everything else passes through as it is, line markers included, so diagnostics keep their
files and lines.

Usage (by the cc1 wrapper): dpu_source.py REAL_CC1 -fpreprocessed INPUT ARGS...
"""

from __future__ import annotations

import os
import re
import sys

LONG = "_L64"  # a reserved name of the length of `long`
DEFINE_LONG = f"#define {LONG} long long\n"
DEFINE = re.compile(r"[ \t]*#[ \t]*define\b")
PRAGMA_UNROLL = re.compile(
    r"[ \t]*#[ \t]*pragma[ \t]+(?:(?P<no>nounroll)"
    r"|unroll(?:[ \t]*\(?[ \t]*(?P<count>[0-9]+)[ \t]*\)?)?"
    r"|clang[ \t]+loop[ \t]+(?:unroll[ \t]*\([ \t]*(?P<mode>full|enable|disable)[ \t]*\)"
    r"|unroll_count[ \t]*\([ \t]*(?P<loop_count>[0-9]+)[ \t]*\)))[ \t]*$"
)
FULL_UNROLL = 65534  # gcc's largest unroll factor: as far as the trip count allows
TOKEN = re.compile(
    r"""
    (?P<directive>^[ \t]*\#[^\n]*)
  | (?P<raw>(?:u8|u|U|L)?R"(?P<delimiter>[^(\s"\\]{0,16})\((?:.|\n)*?\)(?P=delimiter)")
  | (?P<string>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*")
  | (?P<char>(?:u8|u|U|L)?'(?:[^'\\\n]|\\.)*')
  | (?P<number>\.?[0-9](?:[A-Za-z0-9_.]|[eEpP][+-]|'(?=[0-9A-Za-z]))*)
  | (?P<identifier>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<other>[^\s])
    """,
    re.MULTILINE | re.VERBOSE,
)
# Tokens that may stand between the type specifiers of one declaration.
SPECIFIERS = frozenset(
    "long short int char signed unsigned __signed __signed__ double float _Complex "
    "__complex__ const volatile __volatile __volatile__ restrict __restrict __restrict__ "
    "static extern register auto typedef inline __inline __inline__ _Noreturn "
    "_Thread_local __thread __extension__ constexpr mutable thread_local virtual friend "
    "explicit".split()
)
INTEGER_WITH_ONE_L = re.compile(
    r"(?P<digits>0[xX][0-9A-Fa-f']+|0[bB][01']+|[0-9][0-9']*)"
    r"(?P<suffix>[uU]?[lL]|[lL][uU]?)"
)
LONG_CONVERSION = re.compile(r"%%|%[-+ #0']*(?:[0-9]+|\*)?(?:\.(?:[0-9]+|\*)?)?l(?=[diouxXn])")
PRINTF_FUNCTIONS = frozenset({"printf", "__builtin_printf"})
# attribute -> (its part that stays after a pointer's `*`, its part for the declaration)
_MRAM = ("__DPURT_MRAM_SPACE", "__DPURT_MRAM_ATTRIBUTES")
_MRAM_NOINIT = ("__DPURT_MRAM_SPACE", "__DPURT_MRAM_NOINIT_ATTRIBUTES")
DECLARATOR_ATTRIBUTES = {
    "__mram": _MRAM,
    "__mram_keep": _MRAM,
    "__mram_noinit": _MRAM_NOINIT,
    "__mram_noinit_keep": _MRAM_NOINIT,
    "__host": ("", "__DPURT_HOST_ATTRIBUTES"),
    "__dma_aligned": ("", "__DPURT_DMA_ALIGNED_ATTRIBUTES"),
}
# what may stand between a pointer's `*` and such an attribute
POINTER_QUALIFIERS = frozenset(
    "const volatile restrict __restrict __restrict__ __volatile __volatile__ __mram_ptr".split()
)


def _widen_suffix(number: str) -> str:
    match = INTEGER_WITH_ONE_L.fullmatch(number)
    if match is None:
        return number
    suffix = match["suffix"]
    ell = "l" if "l" in suffix else "L"
    return match["digits"] + suffix.replace(ell, ell * 2)


def _widen_format(literal: str) -> str:
    return LONG_CONVERSION.sub(lambda m: m[0] if m[0] == "%%" else m[0] + "l", literal)


def _unroll_pragma(line: str) -> str:
    """gcc's form of one of clang's loop-unrolling pragmas; any other line as it is."""
    match = PRAGMA_UNROLL.fullmatch(line)
    if match is None:
        return line
    if match["no"] or match["mode"] == "disable":
        factor = 1
    else:
        factor = int(match["count"] or match["loop_count"] or FULL_UNROLL)
    return f"#pragma GCC unroll {min(max(factor, 1), FULL_UNROLL)}"


def rewrite(source: str) -> str:
    """The C or C++ ``source``, its directives handled (``-E -fdirectives-only``), with the
    DPU's 64-bit ``long`` and gcc's forms of clang's unroll pragmas."""
    code = _rewrite_code(source)
    # After the first line marker, which names the main file (for debug information), and
    # before the next one, which sets the line numbers again.
    first_line = code.partition("\n")[0]
    if first_line.startswith("# ") and code.count("\n") > 0:
        return first_line + "\n" + DEFINE_LONG + code[len(first_line) + 1 :]
    return DEFINE_LONG + code


def _rewrite_code(source: str) -> str:
    pieces: list[str] = []
    at = 0
    run: list[int] = []  # indices in `pieces` of the current run of specifiers
    run_words: list[str] = []
    # 0: not after printf; 1: after printf; 2: after printf and '(' (in its format)
    printf_state = 0
    after_star = False  # after a pointer's `*` and any qualifiers
    # a declaration part waiting for the end of its declarator; the declarator's state:
    # 0 before its name, 1 after it, or inside that many levels of [ ] plus one
    moved: str | None = None
    moved_from, moved_at = "", 0  # the attribute as written, and where it stands in `pieces`
    declarator = 0

    def end_run() -> None:
        if run_words.count("long") == 1 and "double" not in run_words:
            pieces[run[run_words.index("long")]] = LONG
        run.clear()
        run_words.clear()

    for match in TOKEN.finditer(source):
        pieces.append(source[at : match.start()])
        at = match.end()
        kind, text = match.lastgroup, match[0]
        if kind == "directive":
            define = DEFINE.match(text)
            if define:  # a macro's body is code once expanded
                text = text[: define.end()] + _rewrite_code(text[define.end() :])
            else:
                text = _unroll_pragma(text)
            pieces.append(text)
            continue
        if moved is not None:
            if declarator == 0 and kind != "identifier":  # not a declaration (a cast ...)
                pieces[moved_at] = moved_from
                moved = None
            elif declarator == 0:
                declarator = 1
            elif declarator >= 1 and text == "[":
                declarator += 1
            elif declarator > 1 and text == "]":
                declarator -= 1
            elif declarator == 1:
                pieces.append(f" {moved} ")
                moved = None
        if kind == "identifier" and text in SPECIFIERS:
            run.append(len(pieces))
            run_words.append(text)
            pieces.append(text)
            printf_state = 0
            after_star = after_star and text in POINTER_QUALIFIERS
            continue
        end_run()
        if after_star and moved is None and text in DECLARATOR_ATTRIBUTES:
            moved_from, moved_at = text, len(pieces)
            text, moved = DECLARATOR_ATTRIBUTES[text]
            declarator = 0
        after_star = text == "*" or (after_star and text in POINTER_QUALIFIERS)
        if kind == "number":
            text = _widen_suffix(text)
        elif kind == "string" and printf_state == 2:
            text = _widen_format(text)
        if kind == "identifier":
            printf_state = 1 if text in PRINTF_FUNCTIONS else 0
        elif text == "(" and printf_state == 1:
            printf_state = 2
        elif kind != "string" or printf_state != 2:
            printf_state = 0
        pieces.append(text)
    end_run()
    pieces.append(source[at:])
    return "".join(pieces)


# gcc's own temporary file for the preprocessed source (%g.i): rewritten in place.
GCC_TEMPORARY = re.compile(r"cc[A-Za-z0-9]{6}\.ii?")


def main(args: list[str]) -> int:
    real, arguments = args[0], args[1:]
    try:
        position = arguments.index("-fpreprocessed") + 1
        path = arguments[position]
        with open(path, encoding="utf-8", errors="surrogateescape") as file:
            source = file.read()
    except (ValueError, IndexError, OSError):
        os.execv(real, [real, *arguments])  # not a compile of preprocessed source
    text = rewrite(source)
    if GCC_TEMPORARY.fullmatch(os.path.basename(path)):
        # gcc made it and deletes it: rewrite it and become the real compiler proper,
        # without the time of a child process.
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as file:
            file.write(text)
        os.execv(real, [real, *arguments])
    import subprocess  # a preprocessed file of the user's own: compile a rewritten copy
    import tempfile

    suffix = os.path.splitext(path)[1] or ".i"
    with tempfile.NamedTemporaryFile(
        "w", suffix=suffix, encoding="utf-8", errors="surrogateescape", delete=False
    ) as rewritten:
        rewritten.write(text)
    try:
        arguments[position] = rewritten.name
        return subprocess.run([real, *arguments]).returncode
    finally:
        os.unlink(rewritten.name)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

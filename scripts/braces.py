#!/usr/bin/env python3
"""Braces always (STYLE.md): lists if/else/for/while bodies written without braces, or adds them.

clang-format 14, Debian's, has no InsertBraces, so this does what that option would.
Usage: scripts/braces.py [--fix] [DIR_OR_FILE...]   (exit 1 when the check finds any)
Without paths it reads the project's code: src, tests, bench and fuzz.
"""
import pathlib
import re
import sys

CONTROL = ("if", "for", "while", "switch", "do", "try", "else")
KEYWORD = re.compile(r"\b(if|for|while|else)\b")


def blank(text):
    return re.sub(r"[^\n]", " ", text)


def strip(src):
    """The source with comments and string/char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c == "#" and src[src.rfind("\n", 0, i) + 1 : i].strip(" \t") == "":
            # A preprocessor directive (#else is not an else); continued lines too.
            j = i
            while True:
                j = src.find("\n", j)
                if j < 0 or src[j - 1] != "\\":
                    break
                j += 1
            j = n if j < 0 else j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif src.startswith('R"', i) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            m = re.match(r'R"([^(]*)\(', src[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = src.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
        elif c in "\"'" and not (c == "'" and i > 0 and src[i - 1].isalnum()):  # not 1'000
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            j = min(n, j + 1)
        else:
            out.append(c)
            i += 1
            continue
        out.append(blank(src[i:j]))
        i = j
    return "".join(out)


def skip_space(s, i):
    while i < len(s) and s[i].isspace():
        i += 1
    return i


def body_start(s, m):
    """Where the body of the statement whose keyword `m` matched starts; None if it has none."""
    i = skip_space(s, m.end())
    if m.group(1) == "else":
        return None if re.match(r"if\b", s[i:]) else i
    if s.startswith("constexpr", i):
        i = skip_space(s, i + len("constexpr"))
    if i >= len(s) or s[i] != "(":
        return None
    depth = 0
    while i < len(s):
        depth += {"(": 1, ")": -1}.get(s[i], 0)
        i += 1
        if depth == 0:
            break
    i = skip_space(s, i)
    if m.group(1) == "while" and i < len(s) and s[i] == ";":
        return None  # the end of do { } while (x);
    return i


def matching_end(s, i, stop):
    """The index after the first `stop` at depth 0 from i (stop ';' or the '}' closing s[i])."""
    depth = 0
    while i < len(s):
        c = s[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return None
            if stop == "}" and depth == 0:
                return i + 1
        elif c == ";" and stop == ";" and depth == 0:
            return i + 1
        i += 1
    return None


def statement_end(s, i):
    """The end of the statement starting at i: a simple one, or an if/for/while with a braced body
    and no else. None for anything else (a later pass handles it once its body has braces)."""
    word = re.match(r"[A-Za-z_]+", s[i:])
    if not (word and word.group(0) in CONTROL):
        return matching_end(s, i, ";")
    m = KEYWORD.match(s, i)
    if m is None or m.group(1) == "else":
        return None
    j = body_start(s, m)
    if j is None or j >= len(s) or s[j] != "{":
        return None
    e = matching_end(s, j, "}")
    if e is None or s[skip_space(s, e):].startswith("else"):
        return None
    return e


def unbraced(s):
    for m in KEYWORD.finditer(s):
        i = body_start(s, m)
        if i is not None and i < len(s) and s[i] != "{":
            yield m, i


def fix_once(src):
    s = strip(src)
    edits, last = [], -1
    for _, i in unbraced(s):
        e = statement_end(s, i)
        if e is not None and i >= last:
            edits.append((i, e))
            last = e
    for a, b in reversed(edits):
        # A comment ending the statement's line stays with the statement.
        m = re.match(r"[ \t]*//[^\n]*", src[b:])
        b += m.end() if m else 0
        src = src[:a] + "{ " + src[a:b] + "\n}" + src[b:]
    return src, len(edits)


def sources(args):
    for arg in args:
        p = pathlib.Path(arg)
        for f in sorted(p.rglob("*")) if p.is_dir() else [p]:
            if f.suffix in (".cc", ".h") and "node_modules" not in f.parts:
                yield f


DEFAULT_PATHS = ("src", "tests", "bench", "fuzz")


def main(argv):
    fix = argv[:1] == ["--fix"]
    paths = (argv[1:] if fix else argv) or [
        str(pathlib.Path(__file__).resolve().parent.parent / d) for d in DEFAULT_PATHS
    ]
    found = 0
    for path in sources(paths):
        src = original = path.read_text()
        if fix:
            for _ in range(10):
                src, n = fix_once(src)
                if n == 0:
                    break
            if src != original:  # an untouched file keeps its mtime, so nothing rebuilds
                path.write_text(src)
        s = strip(src)
        for m, _ in unbraced(s):
            print(f"{path}:{s.count(chr(10), 0, m.start()) + 1}: {m.group(1)} body without braces")
            found += 1
    return 1 if found and not fix else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

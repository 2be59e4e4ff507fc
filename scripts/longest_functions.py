#!/usr/bin/env python3
"""The longest C++ functions of the tree, to keep every function short enough to read.

    scripts/longest_functions.py [--top N] [--limit L] [FOLDER ...]

Lists the N longest functions (default 5) of the C++/CUDA sources under the folders (default:
every tracked source), with their lines from the first line of the signature to the closing
brace. With --limit, exits with code 1 when one is longer than L lines (a check for CI).

A function is a brace block opened after a parameter list at namespace or class scope; lambdas
and blocks inside a function count as part of it. Comments, strings and preprocessor lines are
blanked first, so braces in them do not count. A heuristic, not a parser: it is exact for this
code's style (no macros that open or close braces).
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

SOURCES = (".hpp", ".cpp", ".cuh", ".cu", ".h", ".c")
SCOPE_WORDS = re.compile(r"\b(namespace|class|struct|union|enum)\b")


def blank(text):
    """text with comments, string and character literals and preprocessor lines replaced by spaces
    (newlines kept, so line numbers stay)."""
    out, i, n = [], 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            j = i
            while j < n and (text[j] != "\n" or text[j - 1] == "\\"):
                j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        if c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        if c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        if c == "R" and text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i)
                j = n if end < 0 else end + len(m.group(1)) + 2
                out.append(re.sub(r"[^\n]", " ", text[i:j]))
                i = j
                continue
        if c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # 1'000 digit separators
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
            continue
        out.append(c)
        line_start = c == "\n" or (line_start and c in " \t")
        i += 1
    return "".join(out)


def functions(path):
    """(lines, first line, name) of every function defined in the file."""
    text = blank(path.read_text(errors="replace"))
    found = []
    stack = []  # per open brace: "scope", "function" or "block"
    head_from = 0  # where the text before the next brace begins (after ; { or })
    for i, c in enumerate(text):
        if c == "{":
            head = text[head_from:i]
            inside_function = any(kind not in ("scope", "init") for kind in stack)
            if inside_function:
                kind = "block"
            elif re.search(r"\)\s*(noexcept\s*)?:[^;]*[\w>]\s*$", head, re.S) and "->" not in head:
                stack.append("init")  # a member's braced initialiser in a constructor's list: still the head
                continue
            elif SCOPE_WORDS.search(head) and ")" not in head.split("(")[0]:
                kind = "scope"
            elif re.search(r"\)\s*(const|noexcept|override|final|mutable|&|&&|->[^{;]*|:[^{;]*|\s)*$", head, re.S) and \
                    not re.search(r"=\s*[^=]*$", head.split("(")[0]):
                kind = "function"
                start = head_from + len(head) - len(head.lstrip())
                name = re.findall(r"([~\w:<>]+)\s*\(", head)
                stack.append(("function", start, name[0] if name else "?"))
                head_from = i + 1
                continue
            else:
                kind = "scope" if not stack or stack[-1] == "scope" and "=" not in head else "block"
            stack.append(kind)
            head_from = i + 1
        elif c == "}":
            if stack:
                top = stack.pop()
                if top == "init":
                    continue
                if isinstance(top, tuple):
                    _, start, name = top
                    first = text.count("\n", 0, start) + 1
                    last = text.count("\n", 0, i) + 1
                    found.append((last - first + 1, first, name))
            head_from = i + 1
        elif c == ";":
            head_from = i + 1
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", help="folders to search (default: every tracked source)")
    ap.add_argument("--top", type=int, default=5, help="how many to list (default 5)")
    ap.add_argument("--limit", type=int, help="exit with code 1 when a function is longer than this")
    args = ap.parse_args()
    root = Path(subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                               check=True).stdout.strip())
    listed = subprocess.run(["git", "ls-files", *args.folders], cwd=root, capture_output=True, text=True,
                            check=True).stdout.split()
    rows = []
    for rel in listed:
        if rel.endswith(SOURCES):
            rows += [(n, rel, line, name) for n, line, name in functions(root / rel)]
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    print(f"{len(rows)} functions in {len({r[1] for r in rows})} files; the longest:")
    for n, rel, line, name in rows[:args.top]:
        print(f"  {n:4d} lines  {rel}:{line}  {name}")
    if args.limit is not None and rows and rows[0][0] > args.limit:
        print(f"longer than {args.limit} lines: {sum(r[0] > args.limit for r in rows)} function(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

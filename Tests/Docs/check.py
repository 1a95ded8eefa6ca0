#!/usr/bin/env python3
"""Checks that the documentation's links and named files exist.

Reads README.md and docs/*.md (and bench/RESULTS.md) and reports, one line each as FILE:LINE: PROBLEM,
- a relative markdown link (`[text](path)`, `![alt](path)`) whose file does not exist;
- a `#anchor` in a relative link (or a link to `#anchor` in the same file) that names no heading of the target file,
  by GitHub's rule for heading ids;
- a repository path named in backticks or as a link target (`Sources/…`, `bench/…`, `deploy/…`, `Tests/…`,
  `scripts/…`, `Public/…`, `docs/…`) that does not exist.
Exits 1 when anything is missing; the last line is `N passed, M failed`. Standard library only.
"""
import os
import re
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PREFIXES = ("Sources/", "bench/", "deploy/", "Tests/", "scripts/", "Public/", "docs/")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^\s*(```|~~~)")


def documents():
    names = ["README.md", "bench/RESULTS.md"]
    docs = os.path.join(ROOT, "docs")
    if os.path.isdir(docs):
        names += sorted("docs/" + name for name in os.listdir(docs) if name.endswith(".md"))
    return [name for name in names if os.path.isfile(os.path.join(ROOT, name))]


def slug(heading):
    """GitHub's id for a heading: markup dropped, lower case, punctuation removed, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    parts = text.split("`")  # odd parts are code spans, kept as they are; inline HTML tags dropped elsewhere
    text = "".join(part if index % 2 else re.sub(r"<[^>]+>", "", part) for index, part in enumerate(parts))
    text = text.strip().lower()
    kept = []
    for char in text:
        if char in " -_" or unicodedata.category(char)[0] in "LNM":
            kept.append(char)
    return "".join(kept).replace(" ", "-")


_anchors = {}


def anchors(path):
    """Every heading id of the markdown file at `path` (duplicates numbered -1, -2, … as GitHub does)."""
    if path not in _anchors:
        seen = {}
        found = set()
        fenced = False
        with open(path, encoding="utf-8") as file:
            for line in file:
                if FENCE.match(line):
                    fenced = not fenced
                    continue
                match = None if fenced else re.match(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)
                if not match:
                    continue
                base = slug(match.group(2))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
        _anchors[path] = found
    return _anchors[path]


def lines_outside_fences(text):
    """(line number, line, inside a fenced block) for every line."""
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
            yield number, line, True
            continue
        yield number, line, fenced


def repository_path(token):
    """The repository path a backticked token names, or None when it names none."""
    token = token.strip()
    if not token.startswith(PREFIXES) or " " in token:
        return None
    path = token.split("#")[0].split("?")[0].rstrip(".,;:")
    # A pattern or a placeholder (`Tests/Viewer/unit/*.test.mjs`, `bench/…`) names no one file.
    if any(char in path for char in "*…{}<>$|") or path.endswith("/…"):
        return None
    return path


def check(name, problems, passed):
    here = os.path.dirname(os.path.join(ROOT, name))
    with open(os.path.join(ROOT, name), encoding="utf-8") as file:
        text = file.read()
    for number, line, fenced in lines_outside_fences(text):
        where = f"{name}:{number}"
        if fenced:
            continue
        without_code = CODE.sub(lambda m: " " * len(m.group(0)), line)
        for match in LINK.finditer(without_code):
            target = match.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            path = os.path.normpath(os.path.join(here, file_part)) if file_part else os.path.join(ROOT, name)
            if not os.path.exists(path):
                problems.append(f"{where}: link to a missing file: {target}")
                continue
            if anchor:
                if not path.endswith(".md") or os.path.isdir(path):
                    problems.append(f"{where}: anchor on a file that is not markdown: {target}")
                    continue
                if anchor not in anchors(path):
                    problems.append(f"{where}: no heading for #{anchor} in {os.path.relpath(path, ROOT)}")
                    continue
            passed.append(where)
        for match in CODE.finditer(line):
            path = repository_path(match.group(1))
            if path is None:
                continue
            if os.path.exists(os.path.join(ROOT, path)):
                passed.append(where)
            else:
                problems.append(f"{where}: names a missing file: {path}")


def main():
    problems, passed = [], []
    for name in documents():
        check(name, problems, passed)
    for problem in problems:
        print(problem)
    print(f"{len(passed)} passed, {len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Counts the public declarations of Swift modules that have a `///` doc comment.

Usage: Scripts/doc_coverage.py [--min PERCENT] [--list] Sources/SmartDeviceLink Sources/SDLHeadUnit ...

A declaration is a line starting with `public`/`open` (after attributes), a `case` inside a
public enum, or a requirement inside a public protocol; it is documented when the line above it
(skipping attribute lines) is a `///` comment. Exits 1 when a module is below --min (default 95).
"""
import os, re, sys
ATTR = re.compile(r'^\s*@\w+(\([^)]*\))?\s*')
def strip_attrs(s):
    while True:
        m = ATTR.match(s)
        if not m: return s
        s = s[m.end():]

def clean(line, state):
    # remove strings and comments roughly; state tracks multi-line string """ and block comment
    out = []
    i = 0
    n = len(line)
    while i < n:
        if state['block']:
            j = line.find('*/', i)
            if j < 0: return ''.join(out)
            state['block'] = False; i = j+2; continue
        if state['ml']:
            j = line.find('"""', i)
            if j < 0: return ''.join(out)
            state['ml'] = False; i = j+3; continue
        c = line[i]
        if line.startswith('//', i): break
        if line.startswith('/*', i): state['block'] = True; i += 2; continue
        if line.startswith('"""', i): state['ml'] = True; i += 3; continue
        if c == '"':
            j = i+1
            while j < n and line[j] != '"':
                if line[j] == '\\': j += 1
                j += 1
            i = j+1; out.append('""'); continue
        out.append(c); i += 1
    return ''.join(out)

DECL_KW = r'(?:(?:public|open|private|fileprivate|internal|final|static|class|nonisolated|indirect|mutating|nonmutating|override|required|convenience|lazy|weak|unowned|dynamic|distributed|\w+\(set\))\s+)*'
TYPE_RE = re.compile(r'^\s*' + DECL_KW + r'(enum|struct|class|actor|protocol|extension)\b')

def scan(path, report_missing=False):
    lines = open(path).read().split('\n')
    state = {'block': False, 'ml': False}
    depth = 0
    stack = []  # (kind, body_depth, is_public)
    pending = None
    results = []
    for idx, raw in enumerate(lines):
        code = clean(raw, dict(state)) if False else None
        st_before = dict(state)
        code = clean(raw, state)
        s = strip_attrs(raw.strip())
        in_string_or_comment = st_before['block'] or st_before['ml']
        cur = stack[-1] if stack and stack[-1][1] == depth else None
        decl = None
        if not in_string_or_comment:
            if re.match(r'^(public|open)\b', s):
                decl = 'public'
            elif cur and cur[2] and cur[0] == 'enum' and re.match(r'^(indirect\s+)?case\b', s):
                decl = 'case'
            elif cur and cur[2] and cur[0] == 'protocol' and re.match(r'^(static\s+|mutating\s+|nonisolated\s+)*(func|var|init|associatedtype|subscript|typealias)\b', s):
                decl = 'protoreq'
        if decl:
            # find previous non-attribute line
            j = idx - 1
            while j >= 0 and (lines[j].strip().startswith('@') ):
                j -= 1
            prev = lines[j].strip() if j >= 0 else ''
            has = prev.startswith('///') or prev.endswith('*/')
            results.append((path, idx+1, decl, has, raw.strip()))
        # type tracking
        m = TYPE_RE.match(code) if not in_string_or_comment else None
        if m:
            kind = m.group(1)
            is_pub = bool(re.search(r'\b(public|open)\b', code.split(kind)[0]))
            if kind == 'extension':
                is_pub = True  # members resolved by 'public' keyword anyway
            pending = (kind, is_pub)
        for ch in code:
            if ch == '{':
                depth += 1
                if pending:
                    stack.append((pending[0], depth, pending[1])); pending = None
            elif ch == '}':
                if stack and stack[-1][1] == depth: stack.pop()
                depth -= 1
    return results


def main(argv):
    minimum, listing, roots = 95.0, False, []
    it = iter(argv)
    for arg in it:
        if arg == '--min': minimum = float(next(it))
        elif arg == '--list': listing = True
        else: roots.append(arg)
    failed = False
    for root in roots:
        results = []
        for dp, _, files in os.walk(root):
            for f in sorted(files):
                if f.endswith('.swift'):
                    results += scan(os.path.join(dp, f))
        have = sum(1 for r in results if r[3])
        percent = 100.0 * have / max(1, len(results))
        ok = percent >= minimum
        failed |= not ok
        print(f"{root}: {have}/{len(results)} public declarations documented ({percent:.1f} %, minimum {minimum:g} %){'' if ok else ' FAIL'}")
        if listing or not ok:
            for r in results:
                if not r[3]:
                    print(f"  {r[0]}:{r[1]}: {r[4]}")
    return 1 if failed else 0

if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

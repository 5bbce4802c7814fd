#!/usr/bin/env python3
"""Adds the engine dispatch line to every exported async function of a SQLite store that its
PostgreSQL side (<store>.pg.ts) exports:  if (isPg(db)) return await pg.fn(pgOf(db), a, b);
Idempotent (a function that has the line is left alone). Usage: pg-dispatch.py src/x/store.ts"""
import re, sys

def split_top(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([{<": depth += 1
        elif ch in ")]}>": depth -= 1
        if ch == "," and depth == 0:
            out.append(cur); cur = ""
        else: cur += ch
    if cur.strip(): out.append(cur)
    return [p.strip() for p in out]

def params_end(s, start):
    depth = 0
    for i in range(start, len(s)):
        if s[i] == "(": depth += 1
        elif s[i] == ")":
            depth -= 1
            if depth == 0: return i
    raise ValueError

for path in sys.argv[1:]:
    pgpath = path[:-3] + ".pg.ts"
    pgsrc = open(pgpath).read()
    pgnames = set(re.findall(r"export (?:async )?function (\w+)", pgsrc))
    s = open(path).read()
    out, pos = [], 0
    for m in re.finditer(r"export async function (\w+)(<[^(]*>)?\(", s):
        name = m.group(1)
        if name not in pgnames: continue
        pe = params_end(s, m.end() - 1)
        params = split_top(s[m.end():pe])
        names = [re.match(r"(\w+)", p).group(1) for p in params]
        body = s.index("{\n", pe) + 2
        line = f"  if (isPg({names[0]})) return await pg.{name}(pgOf({names[0]}){''.join(', ' + n for n in names[1:])});\n"
        if s[body:body + len(line)] == line: continue
        out.append(s[pos:body]); out.append(line); pos = body
    out.append(s[pos:])
    s = "".join(out)
    base = path.split("/")[-1][:-3]
    # The PostgreSQL side is required on its first use (db/engine.ts pgSide): a SQLite gateway never loads it.
    lazy = f'const pg = pgSide<typeof import("./{base}.pg")>(() => require("./{base}.pg"));\n'
    if lazy not in s:
        # after the last import line
        idx = [m.end() for m in re.finditer(r"^import [^;]*;\n", s, re.M)][-1]
        s = s[:idx] + 'import { isPg, pgOf, pgSide } from "../db/engine";\n\n' + lazy + s[idx:]
    open(path, "w").write(s)
    missing = sorted(pgnames - set(re.findall(r"if \(isPg\(\w+\)\) return await pg\.(\w+)\(", s)))
    if missing: print(path, "not dispatched (do by hand):", missing)

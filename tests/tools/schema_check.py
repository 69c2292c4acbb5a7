#!/usr/bin/python3
"""schema_check.py SCHEMA FILE... - validate JSON files against one of
docs/schema/*.schema.json with Debian's python3-jsonschema (draft 2020-12).
A "$ref" to a sibling schema file is inlined first, so any jsonschema 4.x
resolves it. Prints one line per file; exit 1 if any fails."""
import json, os, sys
import jsonschema

def inline(node, base):
    if isinstance(node, dict):
        if set(node) == {"$ref"} and node["$ref"].endswith(".schema.json"):
            with open(os.path.join(base, node["$ref"])) as f:
                sub = json.load(f)
            sub.pop("$schema", None); sub.pop("$id", None)
            return inline(sub, base)
        return {k: inline(v, base) for k, v in node.items()}
    if isinstance(node, list):
        return [inline(v, base) for v in node]
    return node

path = sys.argv[1]
with open(path) as f:
    schema = inline(json.load(f), os.path.dirname(path))
v = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
bad = 0
for fn in sys.argv[2:]:
    with open(fn) as f:
        doc = json.load(f)
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    if errs:
        bad += 1
        for e in errs[:5]:
            print("%s: %s: %s" % (fn, "/".join(map(str, e.path)) or "(top)", e.message[:200]))
    else:
        print("%s: valid (%s)" % (fn, os.path.basename(path)))
sys.exit(1 if bad else 0)

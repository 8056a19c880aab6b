#!/usr/bin/env python3
"""Validate JSON documents against one of ibsetup's schemas (docs/schema/).

Usage: validate_json.py SCHEMA [FILE|-]...

Each FILE (default: standard input, also "-") holds one JSON document, or one per line (a
stream of `check --json` lines, say). Every error is printed on standard output with its file
and JSON path (`out.json: $.checks[3].status: 'error' is not one of [...]`), and so is a file
that is not JSON (`out.json: not JSON: ...`). Exit status: 0 when every document is valid, 1
on any error, 2 on usage (wrong arguments, an unreadable or invalid schema, an unreadable
FILE), 3 when the validator itself failed. Several FILEs are checked in one run (one interpreter start for a test's hundreds of
outputs).

Only long-standing jsonschema API is used (Draft7Validator, check_schema, iter_errors,
ValidationError.absolute_path and message), so Debian 12's python3-jsonschema 4.10.3 runs it.
"""

import json
import sys

try:
    import jsonschema
except ImportError:  # the callers skip (exit 77) when this fails
    sys.stderr.write("validate_json.py: python3 jsonschema is not installed\n")
    sys.exit(2)


def json_path(parts):
    path = "$"
    for p in parts:
        if isinstance(p, int):
            path += "[%d]" % p
        else:
            path += "." + str(p)
    return path


def describe(error):
    """The error's message, its quoted instance cut short. For a oneOf or anyOf that no branch
    matched, also the errors of the branch that came closest (the fewest errors), which name
    the member at fault."""
    message = error.message
    if len(message) > 200:
        message = message[:160] + " ... " + message[-35:]
    if error.context:
        branches = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        closest = min(branches.values(), key=len)
        message += " (closest: %s)" % "; ".join(
            "%s: %s" % (json_path(list(error.absolute_path) + list(sub.relative_path)),
                        describe(sub))
            for sub in closest)
    return message


def load_documents(text, name):
    """One document, or else one per non-empty line."""
    try:
        return [json.loads(text)]
    except ValueError as whole:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) <= 1:
            raise ValueError("%s: not JSON: %s" % (name, whole))
        docs = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                docs.append(json.loads(line))
            except ValueError as e:
                raise ValueError("%s:%d: not JSON: %s" % (name, number, e))
        return docs


def read_source(source):
    if source == "-":
        return sys.stdin.buffer.read().decode("utf-8"), "<stdin>"
    with open(source, "rb") as f:
        return f.read().decode("utf-8"), source


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write("usage: validate_json.py SCHEMA [FILE|-]...\n")
        return 2
    schema_file = argv[1]
    sources = argv[2:] or ["-"]
    try:
        with open(schema_file, encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft7Validator.check_schema(schema)
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as e:
        sys.stderr.write("validate_json.py: %s: bad schema: %s\n" % (schema_file, e))
        return 2
    validator = jsonschema.Draft7Validator(schema)
    status = 0
    for source in sources:
        try:
            text, name = read_source(source)
        except (OSError, UnicodeDecodeError) as e:
            sys.stderr.write("validate_json.py: %s: %s\n" % (source, e))
            status = 2
            continue
        try:
            docs = load_documents(text, name)
        except ValueError as e:
            print(e)
            status = max(status, 1)
            continue
        for index, doc in enumerate(docs):
            where = name if len(docs) == 1 else "%s[document %d]" % (name, index + 1)
            errors = sorted(validator.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
            for error in errors:
                print("%s: %s: %s" % (where, json_path(error.absolute_path), describe(error)))
            if errors:
                status = max(status, 1)
    return status


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except Exception as e:  # pylint: disable=broad-except
        # Not Python's exit 1, which says "invalid": a caller must not take a crash for a verdict.
        sys.stderr.write("validate_json.py: internal error: %r\n" % (e,))
        sys.exit(3)

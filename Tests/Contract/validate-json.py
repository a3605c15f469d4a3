#!/usr/bin/python3
"""Checks what `share ... --json` printed against the command's JSON Schema (docs/schemas).

    validate-json.py SCHEMA_DIR ARGUMENT... < OUTPUT     one output; problems on stdout, exit 1 if any
    validate-json.py --serve SCHEMA_DIR                  requests on stdin, one JSON object a line:
        {"argv": [...], "stdout": "...", "exitStatus": 0, "complete": true}
      each answered with one line {"problems": ["...", ...]}

The schema is the one named after the longest run of leading words of the arguments (options and
their values skipped) that names a file: `trust ca list` -> trust-ca-list.schema.json. The output is
a sequence of JSON values (JSON Lines, or one pretty-printed value); each must match. Output cut
off by a killed process (`complete` false) may end in a partial value, which is ignored. Uses the
jsonschema module of Debian's python3-jsonschema (Makefile PACKAGES), Draft 2020-12.
"""
import glob
import json
import os
import sys

import jsonschema


def load_schemas(directory):
    store = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.schema.json"))):
        with open(path, encoding="utf-8") as handle:
            schema = json.load(handle)
        jsonschema.Draft202012Validator.check_schema(schema)
        store[os.path.basename(path)[: -len(".schema.json")]] = (path, schema)
    return store


def validator(store, name):
    path, schema = store[name]
    base = "file://" + os.path.abspath(path)
    resolver = jsonschema.RefResolver(
        base, schema, store={"file://" + os.path.abspath(p): s for p, s in store.values()})
    return jsonschema.Draft202012Validator(schema, resolver=resolver)


def command_words(argv):
    words = []
    for argument in argv:
        if argument == "--":
            break
        if argument.startswith("-"):
            continue
        words.append(argument)
    return words


def schema_name(store, argv):
    words = command_words(argv)
    for length in range(len(words), 0, -1):
        name = "-".join(words[:length])
        if name in store and name != "common":
            return name
    return None


def values(text, complete):
    decoder = json.JSONDecoder()
    index = 0
    found = []
    while True:
        while index < len(text) and text[index] in " \t\r\n":
            index += 1
        if index >= len(text):
            return found, None
        try:
            value, end = decoder.raw_decode(text, index)
        except json.JSONDecodeError as error:
            if not complete and "\n" not in text[index:].rstrip("\n"):
                return found, None
            line = text[index:].split("\n", 1)[0]
            return found, "not JSON at character %d (%s): %r" % (index, error.msg, line[:200])
        found.append(value)
        index = end


def check(store, argv, stdout, exit_status, complete):
    name = schema_name(store, argv)
    if name is None:
        if exit_status == 64:
            name = "common-error"
        else:
            return ["no JSON Schema in docs/schemas for 'share %s'" % " ".join(command_words(argv))]
    parsed, problem = values(stdout, complete)
    problems = [problem] if problem else []
    if name == "common-error":
        path, common = store["common"]
        schema = {"$ref": "common.schema.json#/$defs/error"}
        resolver = jsonschema.RefResolver("file://" + os.path.abspath(path), schema,
                                          store={"file://" + os.path.abspath(path): common})
        check_value = jsonschema.Draft202012Validator(schema, resolver=resolver)
    else:
        check_value = validator(store, name)
    for number, value in enumerate(parsed, 1):
        errors = sorted(check_value.iter_errors(value), key=lambda e: list(e.absolute_path))
        for error in errors[:3]:
            where = "/".join(str(p) for p in error.absolute_path) or "(top)"
            detail = error.message
            if error.context:
                best = jsonschema.exceptions.best_match(error.context)
                where = "/".join(str(p) for p in best.absolute_path) or where
                detail = best.message
            problems.append("%s.schema.json, value %d at %s: %s" % (name, number, where, detail[:400]))
    if exit_status is not None and exit_status != 0 and not parsed and complete and exit_status not in (130, 143):
        problems.append("exit status %d but nothing on stdout: every outcome must be JSON under --json" % exit_status)
    return problems


def serve(directory):
    store = load_schemas(directory)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            problems = check(store, request["argv"], request["stdout"], request.get("exitStatus"),
                             request.get("complete", True))
        except Exception as error:  # a bug here must be seen, not hang the tests
            problems = ["the validator failed: %r" % error]
        sys.stdout.write(json.dumps({"problems": problems}) + "\n")
        sys.stdout.flush()


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--serve":
        serve(sys.argv[2])
        return 0
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 64
    store = load_schemas(sys.argv[1])
    problems = check(store, sys.argv[2:], sys.stdin.read(), None, True)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

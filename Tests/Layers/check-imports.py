#!/usr/bin/env python3
"""Fails when a Swift file imports a module its target does not name in Package.swift.

SwiftPM lets a file import any module its target reaches through others (ShareCLI could import
ShareTLS through ShareKit): the manifest would then no longer show the real layering. This check
makes each target's `dependencies:` in Package.swift the whole list of what its files may import
(besides the toolchain's own modules), so the graph the manifest declares is the one the code has.

Usage: Tests/Layers/check-imports.py (from anywhere; reads `swift package dump-package`).
Exit 0 when every import is declared, 1 with one line per undeclared import otherwise.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLCHAIN = {"Foundation", "FoundationEssentials", "Glibc", "Dispatch", "Synchronization", "Testing", "XCTest",
             "Swift", "_Concurrency"}
IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public |internal |package |private |fileprivate )?"
                    r"import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def target_folder(target):
    if target.get("path"):
        return os.path.join(ROOT, target["path"])
    base = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(ROOT, base, target["name"])


def declared(target):
    names = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.add(dependency[kind][0])
    return names


def main():
    manifest = json.loads(subprocess.run(
        ["swift", "package", "dump-package"], cwd=ROOT, check=True, capture_output=True, text=True).stdout)
    modules = {target["name"] for target in manifest["targets"]}
    problems = []
    for target in manifest["targets"]:
        if target["type"] == "system":
            continue
        allowed = declared(target) | TOOLCHAIN | {target["name"]}
        for folder, _, files in os.walk(target_folder(target)):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as source:
                    for number, line in enumerate(source, 1):
                        match = IMPORT.match(line)
                        if match and match.group(1) in modules and match.group(1) not in allowed:
                            problems.append(f"{os.path.relpath(path, ROOT)}:{number}: {target['name']} imports "
                                            f"{match.group(1)}, which Package.swift does not list among its dependencies")
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-imports: {len(problems)} undeclared imports; declare them in Package.swift or remove them")
        return 1
    print(f"check-imports: every import of {len(manifest['targets'])} targets is declared in Package.swift")
    return 0


if __name__ == "__main__":
    sys.exit(main())

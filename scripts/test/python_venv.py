#!/usr/bin/env python3
"""Creates (once) and reuses a virtualenv holding pinned PyPI packages, and prints its python's path.

    scripts/test/python_venv.py --requirement aioapns==4.0 --imports aioapns,h2,jwt

The venv lives in ${XDG_CACHE_HOME:-$HOME/.cache}/apns-emulator/venv-<requirement>, shared by every
checkout and test run on the machine. It counts as ready only once a marker file written after a
successful `pip install` exists; a half-made venv (an interrupted install) is deleted and made again.
Concurrent callers (parallel test processes) serialise on an flock'ed lock file beside it, so only one
installs and the others reuse its result.

Exit codes: 0 ready (the last stdout line is the interpreter path), 1 the install failed (PyPI unreachable,
no python3-venv, ...), with pip's own output on stderr. Uses the standard library only.
"""
import argparse
import fcntl
import os
import shutil
import subprocess
import sys
import venv

MARKER = ".apns-emulator-installed"


def cache_root() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "apns-emulator")


def python_in(path: str) -> str:
    return os.path.join(path, "bin", "python")


def ready(path: str, requirement: str) -> bool:
    marker = os.path.join(path, MARKER)
    try:
        with open(marker, encoding="utf-8") as f:
            return f.read().strip() == requirement and os.path.exists(python_in(path))
    except OSError:
        return False


def install(path: str, requirement: str, imports: str) -> None:
    if os.path.exists(path):
        shutil.rmtree(path)  # no marker: a previous install died half-way
    venv.EnvBuilder(with_pip=True, clear=True).create(path)
    # A short timeout and few retries: with PyPI unreachable the caller should fail in about a minute,
    # not after pip's default five 15-second retries per request.
    command = [python_in(path), "-m", "pip", "install", "--disable-pip-version-check", "--no-input",
               "--timeout", "20", "--retries", "2", *requirement.split()]
    result = subprocess.run(command, stdout=sys.stderr, stderr=sys.stderr)
    if result.returncode != 0:
        shutil.rmtree(path, ignore_errors=True)
        raise SystemExit(f"python_venv: `pip install {requirement}` failed (exit {result.returncode}); "
                         "is PyPI reachable? pip's output is above")
    # Imports must work too (a broken wheel or a missing C extension fails here, not mid-test).
    check = subprocess.run([python_in(path), "-c", f"import {imports}"], stdout=sys.stderr, stderr=sys.stderr)
    if check.returncode != 0:
        shutil.rmtree(path, ignore_errors=True)
        raise SystemExit(f"python_venv: {requirement} installed but `import {imports}` fails")
    # Written last, and atomically: its presence means the whole venv is usable.
    tmp = os.path.join(path, MARKER + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(requirement + "\n")
    os.replace(tmp, os.path.join(path, MARKER))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requirement", required=True,
                        help="the pinned package(s), e.g. aioapns==4.0 (several separated by spaces)")
    parser.add_argument("--imports", required=True, help="modules that must import afterwards, comma-separated")
    args = parser.parse_args()

    root = cache_root()
    os.makedirs(root, exist_ok=True)
    # The aioapns venv keeps the folder name earlier checkouts made, so it is reused.
    name = "+".join(r.replace("==", "-").replace("[", "_").replace("]", "") for r in args.requirement.split())
    path = os.path.join(root, f"venv-{name}")
    if not ready(path, args.requirement):
        with open(path + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if we die
            if not ready(path, args.requirement):  # someone else may have finished while we waited
                print(f"python_venv: creating {path}", file=sys.stderr)
                install(path, args.requirement, args.imports)
    print(python_in(path))


if __name__ == "__main__":
    main()

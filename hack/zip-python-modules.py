"""Packs the pure-Python modules and packages of a folder of the Flux view into one zip file.

Usage: zip-python-modules.py FOLDER ZIP EPOCH [KEEP...]

FOLDER is a folder on Python's path (the view's lib/pythonX.Y, lib/python3/dist-packages), ZIP the
zip to write (a zip on sys.path imports as a folder does: Python looks in lib/pythonXY.zip for its
standard library before the folder), EPOCH the time its entries carry (a zip cannot hold times
before 1980). Run by the view's own python3, in the root file system the view is assembled in
(hack/assemble-flux-view.sh).

Why: the init container copies the view into the pod's volume, and creating a file costs far more
than copying its bytes (about 1 ms per file on the real node's ext4, a 30 MB file in 20 ms). The
standard library alone is about 1,000 small files; one zip of them is one file to copy.

Into the zip go the top-level modules (each source with its byte code beside it, compiled with
unchecked hashes, which zipimport reads as it is) and every package and other folder, whole, data
and metadata included. Left as files: a folder holding an extension module anywhere in it (those
load from files only: lib-dynload, site-packages, a package with a C part), top-level files other
than modules (.pth files, extension modules, licences) and the names given as KEEP (the standard
library's os.py: Python finds its prefix by looking for lib/pythonX.Y/os.py). Top-level byte code
(__pycache__) goes: the zip has its own, and what stays is compiled later.
"""

import os
import py_compile
import shutil
import sys
import tempfile
import time
import zipfile


def has_extension_module(folder):
    """True when an extension module (or a link to one) is anywhere under `folder`."""
    for _, _, files in os.walk(folder):
        if any(name.endswith(".so") or ".so." in name for name in files):
            return True
    return False


def zipped(name):
    """Whether the entry `name` of FOLDER goes into the zip."""
    path = os.path.join(FOLDER, name)
    if name in KEEP or name == "__pycache__":
        return False
    if os.path.isdir(path) and not os.path.islink(path):
        return not has_extension_module(path)
    return name.endswith(".py")


def byte_code(source, shown):
    """The legacy .pyc of `source` (unchecked hash), tracebacks naming `shown`."""
    with tempfile.TemporaryDirectory() as folder:
        target = os.path.join(folder, "module.pyc")
        py_compile.compile(
            source,
            cfile=target,
            dfile=shown,
            doraise=True,
            invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        )
        with open(target, "rb") as compiled:
            return compiled.read()


def entries():
    """(path in the zip, path of the file) of everything zipped, sorted: the same zip every build."""
    found = []
    for name in sorted(filter(zipped, os.listdir(FOLDER))):
        top = os.path.join(FOLDER, name)
        if not os.path.isdir(top):
            found.append((name, top))
            continue
        for folder, subfolders, files in os.walk(top):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            for file in sorted(files):
                path = os.path.join(folder, file)
                found.append((os.path.relpath(path, FOLDER), path))
    return found


def write_zip(found, stamp):
    """Writes ZIP (stored, not compressed: imports read it as it is); returns the modules' count."""
    modules = 0

    def add(archive, name, data):
        info = zipfile.ZipInfo(name, date_time=stamp)
        info.compress_type = zipfile.ZIP_STORED
        info.external_attr = 0o100644 << 16
        archive.writestr(info, data)

    with zipfile.ZipFile(ZIP, "w") as archive:
        for name, path in found:
            with open(path, "rb") as file:
                add(archive, name, file.read())
            if name.endswith(".py"):
                add(archive, name + "c", byte_code(path, os.path.join(ZIP, name)))
                modules += 1
    return modules


def remove():
    """Removes what went into the zip (whole folders, their byte code too) and the top-level byte code."""
    for name in os.listdir(FOLDER):
        path = os.path.join(FOLDER, name)
        if not zipped(name) and name != "__pycache__":
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)


if len(sys.argv) < 4:
    sys.exit("usage: zip-python-modules.py FOLDER ZIP EPOCH [KEEP...]")
FOLDER, ZIP = sys.argv[1], sys.argv[2]
KEEP = set(sys.argv[4:])
if not os.path.isdir(FOLDER):
    sys.exit(f"error: {FOLDER} is not a folder")
if os.path.exists(ZIP):
    sys.exit(f"error: {ZIP} exists already")
missing = sorted(name for name in KEEP if not os.path.exists(os.path.join(FOLDER, name)))
if missing:
    sys.exit(f"error: {FOLDER} has no {', '.join(missing)} to keep")
found = entries()
stamp = time.gmtime(max(int(sys.argv[3]), 315532800))[:6]
modules = write_zip(found, stamp)
remove()
print(f"{ZIP}: {modules} modules, {len(found)} files, {os.path.getsize(ZIP) // 2**20} MiB")

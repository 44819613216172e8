"""Packs the pure-Python standard library of the Flux view into one zip file.

Usage: zip-python-stdlib.py STDLIB ZIP EPOCH

STDLIB is the view's lib/pythonX.Y, ZIP the lib/pythonXY.zip beside it (the first entry of the
default sys.path, where Python looks for its standard library before the folder), EPOCH the time
the zip's entries carry (a zip cannot hold times before 1980). Run by the view's own python3, in
the root file system the view is assembled in (hack/assemble-flux-view.sh).

Why: the init container copies the view into the pod's volume, and creating a file costs far
more than copying its bytes (about 1 ms per file on the real node's ext4, 30 MB in one file in
20 ms). The standard library is about 1,000 small files; one zip of them is one file to copy.

Into the zip go every module and package (the source and its byte code beside it, compiled with
unchecked hashes, which zipimport reads as it is) and the packages' data files. Left as files:
lib-dynload (extension modules load from files only), site-packages, the config folder, the
licence and marker files, and os.py, Python's landmark: it finds its prefix by looking for
lib/pythonX.Y/os.py next to its own bin folder.
"""

import os
import py_compile
import shutil
import sys
import tempfile
import time
import zipfile

KEPT = {"lib-dynload", "site-packages", "os.py"}


def kept(name):
    """Entries of STDLIB that stay files: see KEPT, the config folder and non-Python files."""
    if name in KEPT or name.startswith("config-"):
        return True
    path_is_dir = os.path.isdir(os.path.join(STDLIB, name))
    return not path_is_dir and not name.endswith(".py")


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
    for name in sorted(os.listdir(STDLIB)):
        if kept(name) or name == "__pycache__":
            continue
        top = os.path.join(STDLIB, name)
        if not os.path.isdir(top):
            found.append((name, top))
            continue
        for folder, subfolders, files in os.walk(top):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            for file in sorted(files):
                path = os.path.join(folder, file)
                found.append((os.path.relpath(path, STDLIB), path))
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


def remove(found):
    """Removes the zipped files, then the folders they leave empty (their __pycache__ too)."""
    for _, path in found:
        os.remove(path)
    for name in os.listdir(STDLIB):
        path = os.path.join(STDLIB, name)
        if not kept(name) and os.path.isdir(path):
            shutil.rmtree(path)


if len(sys.argv) != 4:
    sys.exit("usage: zip-python-stdlib.py STDLIB ZIP EPOCH")
STDLIB, ZIP = sys.argv[1], sys.argv[2]
if not os.path.isfile(os.path.join(STDLIB, "os.py")):
    sys.exit(f"error: {STDLIB} is not a Python standard library (no os.py)")
if os.path.exists(ZIP):
    sys.exit(f"error: {ZIP} exists already")
found = entries()
stamp = time.gmtime(max(int(sys.argv[3]), 315532800))[:6]
modules = write_zip(found, stamp)
remove(found)
print(
    f"{ZIP}: {modules} modules, {len(found)} files, "
    f"{os.path.getsize(ZIP) // 2**20} MiB"
)

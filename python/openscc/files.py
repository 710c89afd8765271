"""How openscc touches the file system (docs/monitoring.md "Reports"): inputs
are read only from regular files and only up to a size limit, so a symlink to
/dev/zero or a FIFO in a job directory cannot hang or exhaust it; outputs are
written without following a symbolic link at the output directory or at any
file in it."""
from __future__ import annotations

import errno
import json
import math
import os
import stat
from pathlib import Path

MAX_SUMMARY_BYTES = 8 << 20  # summary.json: a 1024-UE job's is about 1 MB
MAX_DATA_BYTES = 64 << 20    # the CSV files: a full 1024 x 1024 comm_matrix.csv is about 35 MB


class PathError(Exception):
    """A file or directory openscc cannot use; str() is '<path>: <problem>'."""

    def __init__(self, path: str | os.PathLike, problem: str):
        super().__init__(f"{path}: {problem}")


def _os_problem(e: OSError) -> str:
    return e.strerror or str(e)


def _write_problem(e: OSError) -> str:
    if e.errno == errno.ELOOP:  # O_NOFOLLOW met a symbolic link
        return "is a symbolic link; openscc does not write through one"
    return _os_problem(e)


def read_bytes(path: Path, limit: int) -> bytes:
    """The contents of a regular file of at most limit bytes."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise PathError(path, "no such file") from None
    except OSError as e:
        raise PathError(path, _os_problem(e)) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise PathError(path, "is a directory, not a file")
        if not stat.S_ISREG(mode):
            raise PathError(path, "not a regular file")
        data = bytearray()
        while len(data) <= limit:  # bounded even if the file grows meanwhile
            chunk = os.read(fd, limit + 1 - len(data))
            if not chunk:
                break
            data += chunk
    except OSError as e:
        raise PathError(path, _os_problem(e)) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise PathError(path, f"larger than {limit} bytes, the limit for this file")
    return bytes(data)


def read_text(path: Path, limit: int) -> str:
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise PathError(path, f"not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})") from None


def _finite(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(f"number out of range: {text}")
    return v


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def read_json(path: Path) -> object:
    """A JSON document (RFC 8259: no NaN or Infinity) from a file of at most MAX_SUMMARY_BYTES."""
    text = read_text(path, MAX_SUMMARY_BYTES)
    try:
        return json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except ValueError as e:  # JSONDecodeError, and NaN, Infinity or out-of-range numbers
        raise PathError(path, f"not valid JSON ({e})") from None
    except RecursionError:
        raise PathError(path, "not valid JSON (nested too deeply)") from None


def directory(path: Path) -> Path:
    """path, which must be an existing directory."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise PathError(path, "no such directory") from None
    except OSError as e:
        raise PathError(path, _os_problem(e)) from None
    if not stat.S_ISDIR(mode):
        raise PathError(path, "not a directory")
    return path


class OutputDir:
    """A directory openscc writes files into: created if missing; neither it
    nor any file written into it may be a symbolic link (O_NOFOLLOW, and
    every file opened relative to the directory's descriptor).  A context
    manager: the descriptor is closed on leaving."""

    def __init__(self, path: Path, parent: OutputDir | None = None):
        self.path = path
        name, dir_fd = (path.name, parent.fd) if parent else (str(path), None)
        try:
            if not parent:
                path.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.mkdir(name, 0o755, dir_fd=dir_fd)
            except FileExistsError:
                pass
            mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
            if stat.S_ISLNK(mode):
                raise PathError(path, "is a symbolic link; openscc does not write through one")
            if not stat.S_ISDIR(mode):
                raise PathError(path, "not a directory")
            self.fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
        except FileExistsError as e:  # mkdir -p met a file
            raise PathError(e.filename, "not a directory") from None
        except OSError as e:  # a parent that is a file is named by the error
            raise PathError(e.filename if e.filename and not parent else path, _write_problem(e)) from None

    def __enter__(self) -> OutputDir:
        return self

    def __exit__(self, *exc) -> None:
        os.close(self.fd)

    def subdir(self, name: str) -> OutputDir:
        return OutputDir(self.path / name, self)

    def write(self, name: str, data: bytes | str) -> Path:
        """Writes (replaces) the regular file name in this directory; returns its path."""
        path = self.path / name
        # backslashreplace: a name that was not UTF-8 in summary.json (a lone surrogate escape) shows as \udcff
        view = memoryview(data.encode("utf-8", "backslashreplace") if isinstance(data, str) else data)
        try:
            # O_NONBLOCK: a FIFO without a reader fails at once instead of blocking
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644,
                         dir_fd=self.fd)
        except OSError as e:
            raise PathError(path, _write_problem(e)) from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise PathError(path, "not a regular file")
            os.ftruncate(fd, 0)
            while view:
                view = view[os.write(fd, view):]
        except OSError as e:
            raise PathError(path, _write_problem(e)) from None
        finally:
            os.close(fd)
        return path

"""NumPy's file input and output, written in Python over the embedded numpy: the `.npy`
format (`save`/`load`: NumPy's version 1.0 header, little-endian data; arrays are
written in C order), `.npz` archives (`savez`, `savez_compressed`; `load` gives an
`NpzFile`), text (`savetxt`, `loadtxt`, `genfromtxt`), and arrays from bytes
(`frombuffer`, `fromstring`, `fromfile`).

Installed before the package's `__init__`, which re-exports `__all__`.
"""
import ast
import io
import os
import struct
import zipfile

import numpy as np

__all__ = [
    "save", "load", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt",
    "frombuffer", "fromstring", "fromfile", "NpzFile",
]

_MAGIC = b"\x93NUMPY"
# The header's room for the growing axis' length (NumPy pads so a file can grow in place).
_GROWTH_AXIS_MAX_DIGITS = 21
_ALIGN = 64
# The embedded numpy's dtypes: the `.npy` description and struct code of each.
_WRITE = {"float64": ("<f8", "d"), "float32": ("<f4", "f"), "int64": ("<i8", "q"),
          "bool": ("|b1", "?")}
# Descriptions read: (struct code, size, the dtype the values are loaded as). Integer
# types narrower than int64 load as int64, float16 as float32 (the embedded numpy's
# storage types).
_READ = {"f8": ("d", 8, "float64"), "f4": ("f", 4, "float32"), "f2": ("e", 2, "float32"),
         "i8": ("q", 8, "int64"), "i4": ("i", 4, "int64"), "i2": ("h", 2, "int64"),
         "i1": ("b", 1, "int64"), "u8": ("Q", 8, "int64"), "u4": ("I", 4, "int64"),
         "u2": ("H", 2, "int64"), "u1": ("B", 1, "int64"), "b1": ("?", 1, "bool")}


def _open(file, mode):
    """A file object for `file` (a path or an open file) and whether to close it."""
    if hasattr(file, "write" if "w" in mode else "read"):
        return file, False
    return open(os.fspath(file), mode), True


def _header(arr):
    descr, code = _WRITE[arr.dtype.name]
    shape = tuple(int(n) for n in arr.shape)
    d = {"descr": descr, "fortran_order": False, "shape": shape}
    text = "{" + "".join("'%s': %r, " % (k, d[k]) for k in sorted(d)) + "}"
    if shape:
        text += " " * (_GROWTH_AXIS_MAX_DIGITS - len(repr(shape[0])))
    raw = text.encode("latin1")
    hlen = len(raw) + 1
    pad = _ALIGN - ((len(_MAGIC) + 2 + 2 + hlen) % _ALIGN)
    return _MAGIC + b"\x01\x00" + struct.pack("<H", hlen + pad) + raw + b" " * pad + b"\n", code


def _npy_bytes(arr):
    arr = np.asarray(arr)
    if arr.dtype.name not in _WRITE:
        raise ValueError("numpy.save: arrays of dtype %s are not supported" % arr.dtype)
    head, code = _header(arr)
    flat = arr.ravel().tolist()
    return head + struct.pack("<%d%s" % (len(flat), code), *flat)


def save(file, arr, allow_pickle=True, fix_imports=None):
    """Writes `arr` to `file` in NumPy's `.npy` format (`.npy` is appended to a path
    without it)."""
    if isinstance(file, (str, os.PathLike)):
        file = os.fspath(file)
        if not file.endswith(".npy"):
            file = file + ".npy"
    data = _npy_bytes(arr)
    f, close = _open(file, "wb")
    try:
        f.write(data)
    finally:
        if close:
            f.close()


def _read_npy(f, max_header_size=10000):
    magic = f.read(6)
    if magic != _MAGIC:
        raise ValueError("the magic string is not correct; expected %r, got %r"
                         % (_MAGIC, magic))
    major, minor = f.read(2)
    if major == 1:
        (hlen,) = struct.unpack("<H", f.read(2))
    elif major in (2, 3):
        (hlen,) = struct.unpack("<I", f.read(4))
    else:
        raise ValueError("we only support format version (1,0), (2,0), and (3,0), not %s"
                         % ((major, minor),))
    if hlen > max_header_size:
        raise ValueError("Header info length (%d) is large and may not be safe to load "
                         "securely; pass max_header_size" % hlen)
    header = f.read(hlen).decode("utf8" if major == 3 else "latin1")
    d = ast.literal_eval(header)
    if not isinstance(d, dict) or set(d) != {"descr", "fortran_order", "shape"}:
        raise ValueError("Header does not contain the correct keys: %r" % (header,))
    descr = d["descr"]
    if not isinstance(descr, str) or descr[1:] not in _READ or descr[0] not in "<>|=":
        raise ValueError("numpy.load: arrays of dtype %r are not supported (object, "
                         "structured, complex and string arrays are NumPy's alone)" % (descr,))
    code, size, dtype = _READ[descr[1:]]
    order = ">" if descr[0] == ">" else "<"
    shape = tuple(d["shape"])
    n = 1
    for k in shape:
        n *= k
    raw = f.read(n * size)
    if len(raw) != n * size:
        raise ValueError("EOF: reading array data, expected %d bytes got %d"
                         % (n * size, len(raw)))
    values = list(struct.unpack("%s%d%s" % (order, n, code), raw))
    if d["fortran_order"]:
        return np.array(values, dtype=dtype).reshape(shape[::-1]).T
    return np.array(values, dtype=dtype).reshape(shape)


class NpzFile:
    """The arrays of an `.npz` archive, by name (`f["x"]`, `f.files`), read when asked."""

    def __init__(self, fid, own_fid=False, max_header_size=10000):
        self.zip = zipfile.ZipFile(fid)
        self._files = self.zip.namelist()
        self.files = [n[:-4] if n.endswith(".npy") else n for n in self._files]
        self.fid = fid if own_fid else None
        self._max_header_size = max_header_size

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.zip is not None:
            self.zip.close()
            self.zip = None
        if self.fid is not None:
            self.fid.close()
            self.fid = None

    def __iter__(self):
        return iter(self.files)

    def __len__(self):
        return len(self.files)

    def __contains__(self, key):
        return key in self.files

    def keys(self):
        return list(self.files)

    def values(self):
        return [self[k] for k in self.files]

    def items(self):
        return [(k, self[k]) for k in self.files]

    def get(self, key, default=None):
        return self[key] if key in self.files else default

    def __getitem__(self, key):
        if key in self._files:
            member = key
        elif key + ".npy" in self._files:
            member = key + ".npy"
        else:
            raise KeyError("%s is not a file in the archive" % key)
        data = self.zip.read(member)
        if data.startswith(_MAGIC):
            return _read_npy(io.BytesIO(data), self._max_header_size)
        return data

    def __repr__(self):
        return "NpzFile %r with keys: %s" % (getattr(self.zip, "filename", None),
                                             ", ".join(self.files))


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII",
         *, max_header_size=10000):
    """An array from a `.npy` file, or an `NpzFile` from an `.npz` archive."""
    if mmap_mode is not None:
        raise ValueError("numpy.load: mmap_mode is not supported by the embedded numpy")
    f, close = _open(file, "rb")
    try:
        start = f.read(6)
        f.seek(-len(start), 1)
        if start.startswith(b"PK\x03\x04") or start.startswith(b"PK\x05\x06"):
            close = False
            return NpzFile(f, own_fid=not hasattr(file, "read"),
                           max_header_size=max_header_size)
        if start == _MAGIC:
            return _read_npy(f, max_header_size)
        raise ValueError("Cannot load file containing pickled data when "
                         "allow_pickle=False" if not allow_pickle else
                         "numpy.load: pickled files are not supported by the embedded numpy")
    finally:
        if close:
            f.close()


def _savez(file, args, kwds, compress):
    if isinstance(file, (str, os.PathLike)):
        file = os.fspath(file)
        if not file.endswith(".npz"):
            file = file + ".npz"
    named = dict(kwds)
    for i, a in enumerate(args):
        key = "arr_%d" % i
        if key in named:
            raise ValueError("Cannot use un-named variables and keyword %s" % key)
        named[key] = a
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(file, mode="w", compression=method, allowZip64=True) as z:
        for key, a in named.items():
            z.writestr(key + ".npy", _npy_bytes(a))


def savez(file, *args, allow_pickle=True, **kwds):
    """Several arrays in one uncompressed `.npz` archive (positional ones as `arr_0`,
    `arr_1`, ...)."""
    _savez(file, args, kwds, False)


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    """`savez` with deflate compression."""
    _savez(file, args, kwds, True)


# --- text ------------------------------------------------------------------------------


def savetxt(fname, X, fmt="%.18e", delimiter=" ", newline="\n", header="", footer="",
            comments="# ", encoding=None):
    """Writes a 1-d or 2-d array as text, a row per line."""
    X = np.asarray(X)
    if X.ndim == 0 or X.ndim > 2:
        raise ValueError("Expected 1D or 2D array, got %dD array instead" % X.ndim)
    rows = X.reshape(-1, 1).tolist() if X.ndim == 1 else X.tolist()
    ncol = len(rows[0]) if rows else (1 if X.ndim == 1 else X.shape[1])
    if isinstance(fmt, (list, tuple)):
        if len(fmt) != ncol:
            raise AttributeError("fmt has wrong shape.  %s" % str(fmt))
        row_fmt = delimiter.join(fmt)
    elif isinstance(fmt, str):
        n = fmt.count("%")
        if n == 1:
            row_fmt = delimiter.join([fmt] * ncol)
        elif n != ncol:
            raise ValueError("fmt has wrong number of %% formats:  %s" % fmt)
        else:
            row_fmt = fmt
    else:
        raise ValueError("invalid fmt: %r" % (fmt,))
    out = []
    if header:
        out.append(comments + header.replace("\n", "\n" + comments) + newline)
    for row in rows:
        try:
            out.append(row_fmt % tuple(row) + newline)
        except TypeError as e:
            raise TypeError("Mismatch between array dtype ('%s') and format specifier "
                            "('%s')" % (X.dtype, row_fmt)) from e
    if footer:
        out.append(comments + footer.replace("\n", "\n" + comments) + newline)
    text = "".join(out)
    if hasattr(fname, "write"):
        try:
            fname.write(text)
        except TypeError:
            fname.write(text.encode(encoding or "latin1"))
        return
    with open(os.fspath(fname), "w", encoding=encoding or "latin1") as f:
        f.write(text)


def _lines(fname, encoding):
    """The text lines of a path, an open file or an iterable of lines."""
    if isinstance(fname, (str, os.PathLike)):
        with open(os.fspath(fname), encoding=encoding or "latin1") as f:
            return f.read().splitlines()
    lines = []
    for line in fname:
        if isinstance(line, bytes):
            line = line.decode(encoding or "latin1")
        lines.extend(line.splitlines() or [""])
    return lines


def _strip_comment(line, comments):
    for c in comments:
        k = line.find(c)
        if k >= 0:
            line = line[:k]
    return line


def _comment_list(comments):
    if comments is None:
        return []
    if isinstance(comments, (str, bytes)):
        comments = [comments]
    return [c.decode("latin1") if isinstance(c, bytes) else c for c in comments]


def _fields(line, delimiter):
    if delimiter is None:
        return line.split()
    return [f.strip() for f in line.split(delimiter)]


def _cast(dtype):
    name = np.dtype(dtype).name
    if name in ("float64", "float32"):
        return float
    if name == "int64":
        return int
    if name == "bool":
        return lambda s: bool(int(float(s)))
    raise ValueError("loadtxt: dtype %r is not supported by the embedded numpy" % (dtype,))


def loadtxt(fname, dtype=float, comments="#", delimiter=None, converters=None, skiprows=0,
            usecols=None, unpack=False, ndmin=0, encoding=None, max_rows=None, *,
            quotechar=None, like=None):
    """A 1-d or 2-d array from text, a row per line (NumPy's rules: blank and comment
    lines skipped, one row gives a 1-d array, one column a 1-d array)."""
    if ndmin not in (0, 1, 2):
        raise ValueError("Illegal value of ndmin keyword: %s" % ndmin)
    comments = _comment_list(comments)
    if isinstance(usecols, int):
        usecols = [usecols]
    cast = _cast(dtype)
    rows = []
    lines = _lines(fname, encoding)[skiprows:]
    for number, line in enumerate(lines, start=skiprows + 1):
        if max_rows is not None and len(rows) >= max_rows:
            break
        line = _strip_comment(line, comments).strip("\r\n")
        if not line.strip():
            continue
        fields = _fields(line, delimiter)
        if usecols is not None:
            try:
                fields = [fields[c] for c in usecols]
            except IndexError:
                raise ValueError("invalid column index %r at row %d with %d columns"
                                 % (max(usecols), number, len(fields))) from None
        row = []
        for k, text in enumerate(fields):
            conv = None
            if converters is not None:
                conv = converters.get(k) if isinstance(converters, dict) else converters
            try:
                row.append(conv(text) if conv is not None else cast(text))
            except ValueError:
                raise ValueError("could not convert string %r to %s at row %d, column %d."
                                 % (text, np.dtype(dtype).name, number, k + 1)) from None
        if rows and len(row) != len(rows[0]):
            raise ValueError("the number of columns changed from %d to %d at row %d; use "
                             "`usecols` to select a subset and avoid this error"
                             % (len(rows[0]), len(row), number))
        rows.append(row)
    single_column = bool(rows) and len(rows[0]) == 1
    arr = np.array(rows, dtype=dtype) if rows else np.zeros((0,), dtype=dtype)
    if arr.ndim == 2 and (single_column or arr.shape[0] == 1):
        arr = arr.reshape(-1)
    if ndmin == 2 and arr.ndim < 2:
        arr = arr.reshape(-1, 1) if single_column and len(rows) > 1 else arr.reshape(1, -1)
        if not rows:
            arr = arr.reshape(0, 1)
    if unpack:
        return arr.T
    return arr


def genfromtxt(fname, dtype=float, comments="#", delimiter=None, skip_header=0,
               skip_footer=0, converters=None, missing_values=None, filling_values=None,
               usecols=None, names=None, excludelist=None, deletechars=None,
               replace_space="_", autostrip=False, case_sensitive=True, defaultfmt="f%i",
               unpack=None, usemask=False, loose=True, invalid_raise=True, max_rows=None,
               encoding=None, *, ndmin=0, like=None):
    """`loadtxt` with missing values: an empty or unparsable field (or one listed in
    `missing_values`) is `filling_values` (NaN for floats)."""
    if names not in (None, False) or usemask:
        raise NotImplementedError("numpy.genfromtxt: names= (structured arrays) and "
                                  "usemask= (masked arrays) are not supported by the "
                                  "embedded numpy")
    if dtype is None:
        dtype = float
    cast = _cast(dtype)
    comments = _comment_list(comments)
    if isinstance(usecols, int):
        usecols = [usecols]
    missing = set()
    if missing_values is not None:
        for m in (missing_values if isinstance(missing_values, (list, tuple, set))
                  else str(missing_values).split(",")):
            missing.add(m.decode("latin1") if isinstance(m, bytes) else str(m))
    fill = np.nan if filling_values is None else filling_values
    lines = _lines(fname, encoding)[skip_header:]
    if skip_footer:
        lines = lines[:-skip_footer]
    rows = []
    for number, line in enumerate(lines, start=skip_header + 1):
        if max_rows is not None and len(rows) >= max_rows:
            break
        line = _strip_comment(line, comments)
        if not line.strip():
            continue
        fields = _fields(line, delimiter)
        if usecols is not None:
            fields = [fields[c] for c in usecols]
        row = []
        for k, text in enumerate(fields):
            text = text.strip()
            conv = converters.get(k) if isinstance(converters, dict) else None
            if text == "" or text in missing:
                row.append(fill)
                continue
            try:
                row.append(conv(text) if conv is not None else cast(text))
            except ValueError:
                row.append(fill)
        if rows and len(row) != len(rows[0]):
            if invalid_raise:
                raise ValueError("Some errors were detected !\n    Line #%d (got %d columns "
                                 "instead of %d)" % (number, len(row), len(rows[0])))
            continue
        rows.append(row)
    arr = np.array(rows, dtype=dtype) if rows else np.zeros((0,), dtype=dtype)
    if arr.ndim == 2 and (arr.shape[1] == 1 or arr.shape[0] == 1):
        arr = arr.reshape(-1)
    while arr.ndim < ndmin:
        arr = arr.reshape(1, -1) if arr.ndim == 1 else arr.reshape(1)
    if unpack:
        return arr.T
    return arr


# --- bytes -----------------------------------------------------------------------------


def _descr_of(dtype):
    """(struct code, size, loaded dtype) of the embedded numpy's `dtype`."""
    name = np.dtype(dtype).name
    if name not in _WRITE:
        raise ValueError("dtype %r is not supported by the embedded numpy" % (dtype,))
    return _READ[_WRITE[name][0][1:]]


def frombuffer(buffer, dtype=float, count=-1, offset=0, *, like=None):
    """A 1-d array of the values in `buffer` (bytes), read as `dtype` (little-endian)."""
    data = bytes(buffer)
    code, size, loaded = _descr_of(dtype)
    if offset < 0 or offset > len(data):
        raise ValueError("offset must be non-negative and no greater than buffer length "
                         "(%d)" % len(data))
    avail = len(data) - offset
    if count < 0:
        if avail % size:
            raise ValueError("buffer size must be a multiple of element size")
        count = avail // size
    elif count * size > avail:
        raise ValueError("buffer is smaller than requested size")
    values = struct.unpack("<%d%s" % (count, code), data[offset:offset + count * size])
    return np.array(list(values), dtype=loaded)


def fromstring(string, dtype=float, count=-1, *, sep, like=None):
    """A 1-d array from text numbers separated by `sep` (NumPy's binary mode, `sep=''`,
    is deprecated there and refused here)."""
    if sep == "":
        raise ValueError("The binary mode of fromstring is removed, use frombuffer instead")
    if isinstance(string, bytes):
        string = string.decode("latin1")
    cast = _cast(dtype)
    parts = string.split() if sep.strip() == "" else [p.strip() for p in string.split(sep)]
    values = []
    for p in parts:
        if count >= 0 and len(values) >= count:
            break
        if p == "":
            continue
        try:
            values.append(cast(p))
        except ValueError:
            break
    if count >= 0 and len(values) < count:
        raise ValueError("string is smaller than requested size")
    return np.array(values, dtype=np.dtype(dtype).name)


def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None):
    """A 1-d array from a file: raw little-endian values (`sep=''`) or text numbers."""
    f, close = _open(file, "rb")
    try:
        f.seek(offset, 1)
        data = f.read()
    finally:
        if close:
            f.close()
    if sep == "":
        return frombuffer(data, dtype=dtype, count=count)
    return fromstring(data.decode("latin1"), dtype=dtype, count=count, sep=sep)

"""``tf.data.csv``: a CSV file (or URL) streamed row by row (TF.js's ``CSVDataset``).

Each row becomes a dict ``{column: value}``; with label columns (``is_label``) it becomes
``{'xs': {features}, 'ys': {labels}}`` as in TF.js. Values are Python numbers where the
text is a JS number literal (``Number(text)`` in TF.js: ``' 3 '``, ``'1e3'``, ``'0x1F'``,
``'Infinity'``) and strings otherwise; ``batch`` turns them into tensors.

Where it differs from TF.js 4.22 (on purpose, and documented here):

* An empty field is an error naming the file, line and column unless its column has a
  ``default`` (TF.js silently yields ``undefined`` for non-required columns, which then
  cannot be batched).
* Doubled quotes inside a quoted field are unescaped (the field ``"a ""b"" c"`` reads
  ``a "b" c``; TF.js keeps both quotes), and a quoted field may span lines (RFC 4180). Parsing uses
  Python's ``csv`` module; blank lines are skipped.
* ``dtype='string'`` keeps numeric-looking text as a string (TF.js turns it into a number).
* Errors name the 1-based line number in the file (the header is line 1).
* A UTF-8 byte order mark at the start of the file is dropped (TF.js keeps it in the first
  column's name).
"""

from __future__ import annotations

import csv as _csv
import encodings.utf_8_sig  # noqa: F401  (the codec every read uses, loaded once with the module)
import io
import math
import os
import re
import threading
from typing import Any
from urllib.parse import urlparse

from ..errors import ArgumentTypeError, InvalidArgumentError
from ._structure import END
from .dataset import Dataset
from .iterators import LazyIterator

__all__ = ["CSVDataset", "CSVParseError", "csv"]

_RADIX = re.compile(r"0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+")
_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Infinity")
_DTYPES = ("float32", "int32", "bool", "string")
_CONFIG_KEYS = {
    "required": "required",
    "dtype": "dtype",
    "default": "default",
    "is_label": "is_label",
    "isLabel": "is_label",
}
_CSV_KEYS = {
    "has_header": "has_header",
    "hasHeader": "has_header",
    "column_names": "column_names",
    "columnNames": "column_names",
    "column_configs": "column_configs",
    "columnConfigs": "column_configs",
    "configured_columns_only": "configured_columns_only",
    "configuredColumnsOnly": "configured_columns_only",
    "delim_whitespace": "delim_whitespace",
    "delimWhitespace": "delim_whitespace",
    "delimiter": "delimiter",
}


class CSVParseError(InvalidArgumentError):
    """A CSV row that cannot be read; ``line`` is its 1-based line number in the file."""

    def __init__(self, message: str, source: str, line: int):
        super().__init__(message)
        self.source = source
        self.line = line


def js_number(text: str) -> float | None:
    """``Number(text)`` as JavaScript computes it, or None where JS gives NaN."""
    try:
        x = float(text)
    except ValueError:
        t = text.strip()
        if not t:
            return 0.0
        if _RADIX.fullmatch(t):
            return float(int(t, 0))
        return None
    if math.isfinite(x):
        return None if "_" in text else x
    return x if _DECIMAL.fullmatch(text.strip()) else None  # 'Infinity', 1e999; not 'nan'/'inf'


def _as_bool(text: str) -> int:
    return 1 if text == "1" or text.lower() == "true" else 0


class _Column:
    __slots__ = ("index", "key", "dtype", "has_default", "default", "is_label")

    def __init__(self, index: int, key: str, config: dict | None):
        config = config or {}
        self.index = index
        self.key = key
        self.dtype = config.get("dtype")
        self.has_default = "default" in config and config["default"] is not None
        self.default = config.get("default")
        self.is_label = bool(config.get("is_label"))


def _normalize_column_config(name: str, config: Any) -> dict:
    if not isinstance(config, dict):
        raise ArgumentTypeError(
            f"csv(): the config of column {name!r} must be a dict, got {config!r}"
        )
    out = {}
    for key, value in config.items():
        if key not in _CONFIG_KEYS:
            raise InvalidArgumentError(
                f"csv(): unknown key {key!r} in the config of column {name!r}; expected one of "
                "required, dtype, default, is_label"
            )
        out[_CONFIG_KEYS[key]] = value
    dtype = out.get("dtype")
    if dtype is not None and dtype not in _DTYPES:
        raise InvalidArgumentError(
            f"csv(): column {name!r} has dtype {dtype!r}; expected one of {', '.join(_DTYPES)}"
        )
    return out


def _open_text(source: Any) -> io.TextIOBase:
    if isinstance(source, str) and source.startswith(("http://", "https://")):
        import urllib.request  # here, not at import: with http and ssl, 50 ms of import time

        response = urllib.request.urlopen(source)  # noqa: S310 - the user's own URL
        return io.TextIOWrapper(response, encoding="utf-8-sig", newline="")
    return open(_local_path(source), encoding="utf-8-sig", newline="")  # noqa: SIM115


def _local_path(source: Any) -> str:
    if isinstance(source, str) and source.startswith("file://"):
        import urllib.request

        return urllib.request.url2pathname(urlparse(source).path)
    return os.fspath(source)


class CSVDataset(Dataset):
    """Rows of a CSV file as elements; see :func:`csv`."""

    def __init__(
        self,
        source: Any,
        *,
        has_header: bool = True,
        column_names: list[str] | None = None,
        column_configs: dict[str, dict] | None = None,
        configured_columns_only: bool = False,
        delim_whitespace: bool = False,
        delimiter: str | None = None,
    ):
        if not isinstance(source, (str, os.PathLike)):
            raise ArgumentTypeError(
                f"csv(): source must be a path or a file:// or http(s):// URL, got {type(source).__name__}"
            )
        self.source = source
        self._source_name = os.fspath(source) if not isinstance(source, str) else source
        self.has_header = has_header is not False
        if column_names is not None:
            column_names = [str(c) for c in column_names]
        self._full_column_names = column_names
        self.column_configs = (
            None
            if column_configs is None
            else {k: _normalize_column_config(k, v) for k, v in column_configs.items()}
        )
        self.configured_columns_only = bool(configured_columns_only)
        if delim_whitespace:
            if delimiter is not None:
                raise InvalidArgumentError(
                    "Delimiter should not be provided when delim_whitespace is True."
                )
            self.delimiter = " "
        else:
            self.delimiter = "," if not delimiter else delimiter
        if not isinstance(self.delimiter, str) or len(self.delimiter) != 1:
            raise InvalidArgumentError(
                f"csv(): delimiter must be one character, got {self.delimiter!r}"
            )
        self.delim_whitespace = bool(delim_whitespace)
        self.size = None
        self._columns: list[_Column] | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ reading
    def _reader(self, f: Any) -> Any:
        lines: Any = f
        if self.delim_whitespace:
            lines = (line.strip() for line in f)
        return _csv.reader(lines, delimiter=self.delimiter, skipinitialspace=self.delim_whitespace)

    def _read_header(self) -> list[str] | None:
        if not self.has_header:
            return None
        with _open_text(self.source) as f:
            reader = self._reader(f)
            for fields in reader:
                if fields:
                    return fields
        raise InvalidArgumentError("No data was found for CSV parsing.")

    def _setup(self) -> list[_Column]:
        with self._lock:
            if self._columns is not None:
                return self._columns
            from_file = self._read_header()
            names = self._full_column_names
            if names is None and from_file is None:
                raise InvalidArgumentError(
                    "Column names must be provided if there is no header line."
                )
            if names is not None and from_file is not None and len(names) != len(from_file):
                raise InvalidArgumentError(
                    f"The length of provided column_names ({len(names)}) does not match the "
                    f"length of the header line read from file ({len(from_file)})."
                )
            if names is None:
                names = list(from_file or [])
            counts: dict[str, int] = {}
            for name in names:
                counts[name] = counts.get(name, 0) + 1
            duplicates = [n for n, c in counts.items() if c > 1]
            if duplicates:
                raise InvalidArgumentError("Duplicate column names found: " + ",".join(duplicates))
            configs = self.column_configs or {}
            for key in configs:
                if key not in counts:
                    raise InvalidArgumentError(
                        f'The key "{key}" provided in column_configs does not match any of the '
                        f"column names ({','.join(names)})."
                    )
            self._full_column_names = names
            self._columns = [
                _Column(i, name, configs.get(name))
                for i, name in enumerate(names)
                if not (self.configured_columns_only and name not in configs)
            ]
            return self._columns

    def column_names(self) -> list[str]:
        """The names of the columns in the elements (TF.js's ``columnNames()``).

        With ``configured_columns_only``, the configured columns in config order."""
        self._setup()
        if self.configured_columns_only:
            return list((self.column_configs or {}).keys())
        return list(self._full_column_names or [])

    def iterator(self) -> LazyIterator:
        columns = self._setup()
        return _CSVIterator(self, columns)


class _CSVIterator(LazyIterator):
    def __init__(self, dataset: CSVDataset, columns: list[_Column]):
        self.dataset = dataset
        self.columns = columns
        self.n_fields = len(dataset._full_column_names or [])
        self.file = _open_text(dataset.source)
        self.reader = dataset._reader(self.file)
        self.has_labels = any(c.is_label for c in columns)
        self.header_pending = dataset.has_header
        self.last_line = 0

    def summary(self) -> str:
        return f"CSV {self.dataset._source_name}"

    def _next(self) -> Any:
        reader = self.reader
        while True:
            try:
                fields = next(reader)
            except StopIteration:
                return END
            except _csv.Error as e:
                line = self.last_line + 1
                raise CSVParseError(
                    f"Invalid row in csv file '{self.dataset._source_name}' at line {line}: {e}",
                    self.dataset._source_name,
                    line,
                ) from None
            line = self.last_line + 1
            self.last_line = reader.line_num
            if not fields:
                continue  # a blank line
            if self.header_pending:
                self.header_pending = False
                continue
            return self._element(fields, line)

    def _element(self, fields: list[str], line: int) -> Any:
        if len(fields) != self.n_fields:
            raise CSVParseError(
                f"Invalid row in csv file '{self.dataset._source_name}' at line {line}. Should "
                f"have {self.n_fields} elements in a row, but got {len(fields)}: {fields}",
                self.dataset._source_name,
                line,
            )
        features: dict[str, Any] = {}
        labels: dict[str, Any] = {}
        for col in self.columns:
            text = fields[col.index]
            if text == "":
                if col.has_default:
                    value = col.default
                else:
                    raise CSVParseError(
                        f"Required column {col.key} is empty in line {line} of csv file "
                        f"'{self.dataset._source_name}' (a missing value): {fields}. Give the "
                        f"column a default with column_configs={{{col.key!r}: {{'default': ...}}}}, "
                        "or fill in the value.",
                        self.dataset._source_name,
                        line,
                    )
            else:
                dtype = col.dtype
                if dtype == "string":
                    value = text
                else:
                    num = js_number(text)
                    if num is None:
                        value = _as_bool(text) if dtype == "bool" else text
                    elif dtype is None or dtype == "float32":
                        value = num
                    elif dtype == "int32":
                        value = math.floor(num) if math.isfinite(num) else num
                    else:  # bool
                        value = _as_bool(text)
            if col.is_label:
                labels[col.key] = value
            else:
                features[col.key] = value
        if self.has_labels:
            return {"xs": features, "ys": labels}
        return features

    def _close(self) -> None:
        self.file.close()


def csv(source: Any, csv_config: dict | None = None, **kwargs: Any) -> CSVDataset:
    """Streams a CSV file (a path, a ``file://`` URL or an ``http(s)://`` URL) row by row.

    Keyword arguments (or a TF.js-style ``csv_config`` dict, camelCase keys accepted):
    ``has_header=True``, ``column_names``, ``column_configs`` (``{column: {'is_label',
    'dtype', 'default', 'required'}}``), ``configured_columns_only=False``,
    ``delimiter=','``, ``delim_whitespace=False``. Rows become
    ``{column: value}``, or ``{'xs': {...}, 'ys': {...}}`` when some columns are labels.
    Malformed rows and missing values raise :class:`CSVParseError` naming the line.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), 'd.csv')
    >>> _ = open(path, 'w').write('a,b,label\\n1,"x,y",0\\n2,z,1\\n')
    >>> ds = tf.data.csv(path, column_configs={'label': {'is_label': True}})
    >>> ds.column_names()
    ['a', 'b', 'label']
    >>> ds.to_array()[0]
    {'xs': {'a': 1.0, 'b': 'x,y'}, 'ys': {'label': 0.0}}
    """
    config: dict[str, Any] = {}
    for key, value in {**(csv_config or {}), **kwargs}.items():
        if key not in _CSV_KEYS:
            raise InvalidArgumentError(
                f"csv(): unknown option {key!r}; expected one of has_header, column_names, "
                "column_configs, configured_columns_only, delim_whitespace, delimiter"
            )
        config[_CSV_KEYS[key]] = value
    return CSVDataset(source, **config)

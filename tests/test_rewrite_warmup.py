"""``rewrite_warmup`` (tests/conftest.py's ``pytest_collection``): on a fresh checkout each
pytest-xdist worker but the first imports its share of the test modules before collecting,
so that the workers split the rewriting of the asserts instead of each doing all of it."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from rewrite_warmup import import_share, module_paths, share

HERE = Path(__file__).resolve()


@pytest.mark.parametrize("workers", [1, 2, 3, 5])
def test_the_shares_split_what_worker_0_does_not_start_with(workers):
    paths = [Path(f"m{i}.py") for i in range(23)]
    shares = [share(paths, k, workers) for k in range(workers)]
    assert shares[0] == []
    rest = [p for s in shares[1:] for p in s]
    assert rest == paths[len(paths) // workers :] if workers > 1 else rest == []
    assert share(paths, workers, workers) == [] and share(paths, -1, workers) == []


def test_the_modules_are_the_ones_pytest_collects(pytestconfig, request):
    modules = module_paths(pytestconfig)
    assert modules == sorted(modules, key=lambda p: p.parts)
    assert HERE in modules
    collected = {Path(str(item.path)).resolve() for item in request.session.items}
    assert {p for p in collected if p.name.startswith("test_")} <= set(modules)
    assert all(p.name.startswith("test_") and p.suffix == ".py" for p in modules)


def _fake_config(folder: Path, worker: str | None = None, count: int = 3) -> SimpleNamespace:
    """A pytest config's parts that ``rewrite_warmup`` reads (a worker's ``workerinput``)."""
    ini = {"python_files": ["test_*.py"], "norecursedirs": ["skipped*"]}
    config = SimpleNamespace(args=[str(folder)], getini=ini.__getitem__)
    if worker is not None:
        config.workerinput = {"workerid": worker, "workercount": count}
    return config


def test_a_worker_imports_and_caches_its_share(tmp_path, monkeypatch):
    (tmp_path / "test_warm_a.py").write_text("def test_a():\n    assert 1 + 1 == 2\n")
    (tmp_path / "test_warm_b.py").write_text(
        f"import sys\nsys.path.append({str(tmp_path / 'added')!r})\n\n"
        "def test_b():\n    assert [1] == [1]\n"
    )
    (tmp_path / "test_warm_c.py").write_text("import pytest\npytest.skip('at import', allow_module_level=True)\n")  # fmt: skip
    (tmp_path / "skipped_dir").mkdir()
    (tmp_path / "skipped_dir" / "test_warm_d.py").write_text("raise AssertionError\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "test_warm_e.py").write_text("raise AssertionError\n")
    config = _fake_config(tmp_path)
    assert [p.name for p in module_paths(config)] == ["test_warm_a.py", "test_warm_b.py", "test_warm_c.py"]  # fmt: skip
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path_before = list(sys.path)
    try:
        for worker, expected in (("gw0", []), ("gw2", []), ("gw1", ["test_warm_b"])):
            # gw2's module skips at import
            assert import_share(_fake_config(tmp_path, worker)) == expected
        # The folder entry made for the import is gone; what the module added stays.
        assert sys.path == [*path_before, str(tmp_path / "added")]
        module = sys.modules["test_warm_b"]
        assert Path(module.__file__) == tmp_path / "test_warm_b.py"
        # Imported through pytest's import hook: asserts rewritten, cached for the others.
        assert "@py_assert" in repr(module.test_b.__code__.co_varnames)
        assert any("pytest" in p.name for p in (tmp_path / "__pycache__").iterdir())
        assert "test_warm_c" not in sys.modules
    finally:
        sys.path[:] = path_before
        for name in ("test_warm_a", "test_warm_b", "test_warm_c"):
            sys.modules.pop(name, None)


def test_nothing_is_imported_outside_xdist_or_without_bytecode(tmp_path, monkeypatch):
    (tmp_path / "test_warm_f.py").write_text("X = 1\n")
    (tmp_path / "test_warm_g.py").write_text("X = 2\n")
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    assert import_share(_fake_config(tmp_path)) == []  # not an xdist worker
    assert import_share(_fake_config(tmp_path, "gw1", count=1)) == []  # one worker: no share
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert import_share(_fake_config(tmp_path, "gw1", count=2)) == []
    assert "test_warm_g" not in sys.modules

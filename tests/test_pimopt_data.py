"""pimopt.data: the LIBSVM reader and its errors, the seeded generators, the split."""

from __future__ import annotations

import re

import numpy as np
import pytest

from pimopt import data


def test_reader_reads_dense_rows_and_normalises_labels(tmp_path):
    f = tmp_path / "a.libsvm"
    f.write_text("+1 1:0.5 3:-2\n# a comment\n\n-1 2:1.25\n0 1:1\n1\n")
    ds = data.read_libsvm(f)
    assert ds.x.dtype == np.float32 and ds.x.shape == (4, 3)
    np.testing.assert_array_equal(ds.x[0], [0.5, 0.0, -2.0])
    np.testing.assert_array_equal(ds.x[1], [0.0, 1.25, 0.0])
    np.testing.assert_array_equal(ds.y, [1, 0, 0, 1])
    np.testing.assert_array_equal(ds.labels("svm"), [1, -1, -1, 1])
    np.testing.assert_array_equal(ds.labels("lr"), [1, 0, 0, 1])
    assert data.read_libsvm(f, n_features=5).x.shape == (4, 5)


@pytest.mark.parametrize("line, message", [
    ("+1 1:0.5 x", "is not index:value"),
    ("2 1:0.5", "is not +1, -1, 1 or 0"),
    ("abc 1:1", "is not a number"),
    ("+1 0:1", "below 1"),
    ("+1 3:1 2:1", "does not increase"),
    ("+1 1:nan", "not finite"),
])
def test_reader_errors_name_file_and_line(tmp_path, line, message):
    f = tmp_path / "bad.libsvm"
    f.write_text(f"+1 1:1\n\n{line}\n")
    with pytest.raises(ValueError, match=r"bad.libsvm, line 3: .*" + re.escape(message)):
        data.read_libsvm(f)


def test_round_trip_through_libsvm(tmp_path):
    ds = data.dense(50, 7, seed=2)
    back = data.read_libsvm(data.write_libsvm(tmp_path / "d.libsvm", ds))
    np.testing.assert_allclose(back.x, ds.x, rtol=1e-6)
    np.testing.assert_array_equal(back.y, ds.y)


def test_generators_are_seeded_and_planted():
    a, b, c = data.dense(400, 16, seed=1), data.dense(400, 16, seed=1), data.dense(400, 16, 2)
    np.testing.assert_array_equal(a.x, b.x)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.array_equal(a.x, c.x)
    assert 0.2 < a.y.mean() < 0.8
    s1, s2 = data.sparse(300, 64, seed=4), data.sparse(300, 64, seed=4)
    np.testing.assert_array_equal(s1.x, s2.x)
    assert set(np.unique(s1.x)) <= {0.0, 1.0}
    assert (s1.x.sum(axis=1) <= data.CRITEO_FIELDS).all() and s1.x.sum() > 0


def test_sklearn_set_is_standardised():
    ds = data.sklearn_set("breast_cancer")
    assert ds.x.shape == (569, 30)
    np.testing.assert_allclose(ds.x.mean(axis=0), 0, atol=1e-5)
    with pytest.raises(ValueError, match="unknown set"):
        data.sklearn_set("nope")


def test_split_is_seeded_and_disjoint():
    ds = data.dense(100, 3, seed=0)
    tr, te = data.split(ds, 0.25, seed=5)
    assert len(tr) == 75 and len(te) == 25
    tr2, _ = data.split(ds, 0.25, seed=5)
    np.testing.assert_array_equal(tr.x, tr2.x)
    rows = {r.tobytes() for r in tr.x} & {r.tobytes() for r in te.x}
    assert not rows

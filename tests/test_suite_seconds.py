"""``rcfr figure convergence_suite --x seconds``: the suite's curves against each run's seconds."""

import json

from conftest import one_line_error, run_cli

from rcfr.experiments.figures import draw_figure


def test_the_suite_figure_against_seconds(tmp_path, capsys):
    spec = tmp_path / "suite.toml"
    spec.write_text('name = "suite_seconds"\nfigure = "convergence_suite"\n[base]\n'
                    'iterations = 10\neval_every = 5\n[[part]]\n'
                    'grid = { game = ["kuhn"], algorithm = ["cfr", "cfr+"] }\n')
    db, png, data_file = tmp_path / "results.db", tmp_path / "s.png", tmp_path / "s.json"
    code, _, err = run_cli(capsys, "figure", "--spec", spec, "--db", db, "-o", png,
                           "--data", data_file, "--x", "seconds")
    assert code == 0, err
    data = json.loads(data_file.read_text())
    assert data["axis"] == "seconds"
    for row in data["games"]["kuhn"]["rules"].values():
        assert row["x"] == [5, 10] and 0 < row["seconds"][0] < row["seconds"][1]
    (ax,) = draw_figure(data).axes
    assert ax.get_xlabel().startswith("seconds")
    assert sorted(line.get_label() for line in ax.get_lines()) == ["CFR (rcfr)",
                                                                  "CFR+ (rcfr)"]
    data["axis"] = "iterations"  # the same data by iterations: the published curves too
    (ax,) = draw_figure(data).axes
    assert ax.get_xlabel() == "iterations" and len(ax.get_lines()) == 2 + 4
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_x_axis_is_checked(tmp_path, capsys):
    line = one_line_error(*run_cli(capsys, "figure", "thesis_4_1", "--no-run", "--db",
                                   tmp_path / "r.db", "--x", "seconds")[::2])
    assert "--x seconds applies to convergence_suite" in line
    line = one_line_error(*run_cli(capsys, "figure", "convergence_suite", "--no-run", "--db",
                                   tmp_path / "r.db", "--x", "minutes")[::2])
    assert "--x must be one of iterations, seconds" in line

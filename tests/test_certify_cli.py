"""--certify on the command line: ``solve``, ``check`` and ``bench`` take the API's
certificates (:func:`sudokulab.solve` with ``certify``), write or count them, and treat
a refuted claim or a rejected proof as a failure; a backend that writes no proof with
its options is a usage error."""

from __future__ import annotations

import pytest
from helpers import fake_backends

from sudokulab.cli import main

pytest.importorskip("pysat")

#: 4x4 puzzles: one solution, none, two (a deadly rectangle of 1234/3412/2143/4321 blanked).
UNIQUE = "1...3..2...3..2."
NONE = "...3.4.2..1....."
TWO = ".2.4.4.221434321"


@pytest.fixture
def fakes(monkeypatch):
    yield from fake_backends(monkeypatch, "OverclaimBackend", "NoProofBackend", "BadProofBackend")


def _lines(tmp_path, *lines: str):
    path = tmp_path / "puzzles.txt"
    path.write_text("".join(f"{line}\n" for line in lines))
    return str(path)


def test_solve_refutes_a_wrong_claim_and_says_what_made_no_claim(tmp_path, capsys, fakes):
    from sudokulab.models import is_solution, parse_puzzle

    wrong = tmp_path / "wrong"
    assert main(["solve", TWO, "--unique", "--backend", "overclaim", "--certify", str(wrong)]) == 1
    err = capsys.readouterr().err
    assert "exactly 1 solution is refuted: its CNF also allows " in err
    other = err.split("also allows ")[1].split(")")[0]
    assert is_solution(parse_puzzle(TWO), [int(c) for c in other])
    assert not wrong.exists()  # no proof of a refuted claim

    folder = tmp_path / "first"  # a first solution claims nothing: nothing written, said once
    assert main(["solve", _lines(tmp_path, UNIQUE, TWO), "--certify", str(folder)]) == 0
    err = capsys.readouterr().err
    assert err.count("2 answers made no negative claim") == 1 and "ask --unique" in err
    assert not folder.exists()


def test_a_rejected_proof_fails_and_a_backend_without_proofs_is_a_usage_error(
    tmp_path, capsys, fakes
):
    folder = tmp_path / "bad"
    args = ["solve", UNIQUE, "--unique", "--backend", "badproof", "--certify", str(folder)]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "the proof of exactly 1 solution was rejected" in err and "proof by badproof" in err
    assert main(["check-proof", str(folder / "1.cnf"), str(folder / "1.drat")]) == 1
    capsys.readouterr()
    for command in (
        ["solve", UNIQUE, "--backend", "noproof", "--certify", str(tmp_path / "n")],
        ["check", UNIQUE, "--backends", "native,noproof", "--certify", str(tmp_path / "n")],
        ["bench", UNIQUE, "--backends", "noproof", "--certify", "--out", str(tmp_path / "n")],
    ):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert (
            err.strip()
            .splitlines()[-1]
            .endswith("--certify: noproof: no proof: its proof logging is off")
        ), err
        assert "Traceback" not in err
    assert not (tmp_path / "n").exists()
    plain = tmp_path / "plain"
    plain.write_text("")
    assert main(["solve", UNIQUE, "--certify", str(plain)]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_check_certify_marks_proved_verdicts_and_writes_the_first_accepted_proof(
    tmp_path, capsys, fakes
):
    folder = tmp_path / "proofs"
    puzzles = _lines(tmp_path, UNIQUE, "1" * 15, NONE)  # line 2: one cell short, counted
    args = ["check", puzzles, "--backends", "badproof,native", "--certify", str(folder)]
    assert main(args) == 2  # the bad line
    out = capsys.readouterr().out
    table = out.split("\n\n")[0].splitlines()
    assert "certified" in table[0]
    badproof, native = (next(r for r in table if r.startswith(n)) for n in ("badproof", "native"))
    assert "1 proved, 1 rejected" in badproof and "2 proved:" in native
    assert "PROOF REJECTED" in out  # the unique puzzle's row of badproof, listed
    assert sorted(p.name for p in folder.iterdir()) == ["1.cnf", "1.drat", "3.cnf", "3.drat"]
    for k in (1, 3):  # native's proof of 1 (badproof's was rejected), badproof's of 3
        assert main(["check-proof", str(folder / f"{k}.cnf"), str(folder / f"{k}.drat")]) == 0
    capsys.readouterr()
    # a refuted claim is a disagreement too, without a bad line: exit 1
    args = ["check", TWO, "--backends", "native,overclaim", "--certify", str(tmp_path / "two")]
    assert main(args) == 1
    assert "exactly 1 solution is refuted" in capsys.readouterr().out


def test_bench_certify_keeps_the_proofs_figures_in_the_store_and_the_report(
    tmp_path, capsys, fakes
):
    import csv
    import io

    from sudokulab.bench.store import Store

    out = tmp_path / "out"
    puzzles = _lines(tmp_path, UNIQUE, NONE, TWO)
    args = ["bench", puzzles, "--backends", "native,badproof", "--unique", "--certify",
            "--workers", "1", "--no-plots", "--out", str(out)]  # fmt: skip
    assert main(args) == 1  # badproof's rejected proof is a wrong row
    captured = capsys.readouterr()
    assert "certified" in captured.out and "2 proved:" in captured.out
    assert "1 proved, 1 rejected" in captured.out
    with Store(out / "results.sqlite") as store:
        rows = store.results().set_index(["backend", "idx"])
    for idx, proved in ((0, True), (1, True), (2, None)):  # the two-solution puzzle: no claim
        row = rows.loc[("native", idx)]
        assert row["proved"] is proved
        if proved:
            assert row["proof_lines"] > 0 and row["proof_bytes"] > 0 and row["check_time"] > 0
    assert rows.loc[("badproof", 0), "proved"] is False  # its proof of "unique" is rejected
    assert main(["report", "--out", str(out), "--format", "csv", "--no-plots"]) == 1
    table = {r["backend"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert (table["native"]["proved"], table["native"]["rejected"]) == ("2", "0")
    assert (table["badproof"]["proved"], table["badproof"]["rejected"]) == ("1", "1")
    assert table["badproof"]["wrong"] == "1"
    for column in ("mean_proof_lines", "mean_proof_bytes", "mean_check_s"):
        assert float(table["native"][column]) > 0


def test_a_claim_no_proof_can_be_made_of_fails_solve_check_and_bench(tmp_path, capsys, monkeypatch):
    import sudokulab.certify.prove as prove
    from sudokulab.bench.store import Store

    def refuse(*args, **kwargs):  # what a 25x25 killer cage of twelve cells meets
        raise ValueError("a cage of 12 cells in a 25x25 grid has too many value sets")

    # dlx logs no proof: its claims go to the second solver, whose CNF is refused here
    monkeypatch.setattr(prove, "claim_cnf", refuse)
    folder = tmp_path / "none"
    assert main(["solve", UNIQUE, "--unique", "--backend", "dlx", "--certify", str(folder)]) == 1
    assert "not certified: a cage of 12 cells" in capsys.readouterr().err
    args = ["check", UNIQUE, "--backends", "dlx", "--certify", str(folder)]
    assert main(args) == 1  # the answer verifies, and its claim is not proved
    out = capsys.readouterr().out
    assert "solved; not certified: a cage of 12 cells" in out
    assert "backends disagree or fail" in out and not folder.exists()
    # the bench's certified run: the row keeps its verdict, unproved (proved 0, a wrong
    # row, the reason in its error), and fails the run; the two-solution puzzle claims nothing
    puzzles = _lines(tmp_path, UNIQUE, TWO)
    bench = ["bench", puzzles, "--backends", "dlx", "--unique", "--certify", "--workers", "1",
             "--no-plots", "--format", "csv"]  # fmt: skip
    assert main([*bench, "--out", str(tmp_path / "b1")]) == 1
    with Store(tmp_path / "b1" / "results.sqlite") as store:
        rows = store.results().set_index("idx")
    assert rows.loc[0, "status"] == "solved" and rows.loc[0, "proved"] is False
    assert "not certified: a cage of 12 cells" in rows.loc[0, "error"]
    assert rows.loc[1, "status"] == "multiple" and rows.loc[1, "proved"] is None
    table = capsys.readouterr().out.splitlines()
    head, dlx = table[0].split(","), table[1].split(",")
    assert dlx[head.index("wrong")] == "1" and dlx[head.index("rejected")] == "1"
    monkeypatch.undo()  # the same with the CNF allowed: the claims proved, exit 0
    assert main(args) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["1.cnf", "1.drat"]
    capsys.readouterr()
    assert main([*bench, "--out", str(tmp_path / "b2")]) == 0
    table = capsys.readouterr().out.splitlines()
    head, dlx = table[0].split(","), table[1].split(",")
    assert dlx[head.index("wrong")] == "0" and dlx[head.index("proved")] == "1"

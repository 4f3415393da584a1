"""serverpick: game server selection and client assignment under latency,
fairness and capacity constraints — the published heuristics and exact
optima, from Python.

Every instance is checked by its family's reader, every engine runs through
the crate's one runner, and every solution is scored by the family's one
evaluator: the answers are the `serverpick` command line's.

>>> import numpy as np, serverpick as sp
>>> inst = sp.cma_instance(np.array([[10., 40.], [35., 12.], [20., 25.]]), [2, 1])
>>> r = sp.solve(inst, "exact")
>>> r.status, r.objective, r.assignment.tolist()
('optimal', 42.0, [0, 1, 0])
>>> sp.evaluate(inst, [1, 1, 0]).reasons      # mirror 1 holds one client
['mirror 1 has 2 clients, capacity 1']
"""

from __future__ import annotations

import inspect
import os
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _serverpick
from ._engine import stop_requested
from ._serverpick import (  # noqa: F401  (re-exported)
    Error,
    InputError,
    Instance,
    SolverError,
    UsageError,
    __version__,
    cli,
    cma_instance,
    engines,
    families,
    from_json,
    params,
    read,
    spd_instance,
)

__all__ = [
    "Error",
    "Evaluation",
    "InputError",
    "Instance",
    "Result",
    "SolverError",
    "UsageError",
    "__version__",
    "bench",
    "cli",
    "cma_instance",
    "engines",
    "evaluate",
    "families",
    "from_json",
    "gen",
    "params",
    "plan",
    "read",
    "solve",
    "spd_instance",
    "stop_requested",
]

PathLike = Union[str, "os.PathLike[str]"]
#: What a Python engine returns: the family's solution dict, an assignment
#: (a server or mirror index per client), or a wrapper dict with `solution`,
#: `status`, `bound`, `objective`, `message` (the external-engine protocol).
Answer = Union[Mapping[str, Any], Sequence[int], np.ndarray]


@dataclass(frozen=True)
class Result:
    """One engine run, scored by the family's evaluator.

    `status` is `optimal` (proven), `feasible`, `infeasible` (proven),
    `time_limit` or `error`; `objective` is the evaluator's, `bound` the
    engine's proven bound (exact engines), `gap` their relative gap.
    `reason` says why an `error` row failed (`rejected`, `raised`, …),
    `stop` which limit ended a run early. `record` is the whole record, as `serverpick solve --json` prints it.
    """

    status: str
    engine: str
    problem: str
    objective: Optional[float]
    bound: Optional[float]
    gap: Optional[float]
    time_ms: float
    metrics: Dict[str, Any]
    solution: Optional[Dict[str, Any]]
    message: Optional[str]
    reason: Optional[str]
    stop: Optional[str]
    record: Dict[str, Any] = field(repr=False)

    @property
    def assignment(self) -> Optional[np.ndarray]:
        """The server or mirror of each client (int64), where the family's
        solution is an assignment; else None."""
        assign = (self.solution or {}).get("assign")
        if not isinstance(assign, list):
            return None
        return np.array(assign, dtype=np.int64)

    @classmethod
    def _from_record(cls, rec: Dict[str, Any]) -> "Result":
        return cls(
            status=rec.get("status", "error"),
            engine=rec.get("engine", ""),
            problem=rec.get("problem", ""),
            objective=rec.get("objective"),
            bound=rec.get("bound"),
            gap=rec.get("gap"),
            time_ms=float(rec.get("time_ms") or 0.0),
            metrics=rec.get("metrics") or {},
            solution=rec.get("solution"),
            message=rec.get("message"),
            reason=rec.get("reason"),
            stop=rec.get("stop"),
            record=rec,
        )


@dataclass(frozen=True)
class Evaluation:
    """What the family's evaluator says of a solution: `feasible`, the
    `objective`, every metric, and the `reasons` it is infeasible."""

    feasible: bool
    objective: Optional[float]
    metrics: Dict[str, Any]
    reasons: List[str]
    lines: List[tuple] = field(repr=False, default_factory=list)


def _limit(time_limit: Optional[float]) -> Optional[float]:
    return None if time_limit is None else float(time_limit)


def solve(
    instance: Instance,
    engine: Union[str, Callable[[Instance], Answer]] = "exact",
    time_limit: Optional[float] = 60.0,
    seed: int = 1,
    threads: Optional[int] = None,
    write_model: Optional[PathLike] = None,
    model_format: str = "mps",
    solver_log: Optional[PathLike] = None,
    **params: Any,
) -> Result:
    """Runs one engine on `instance` and returns its evaluated `Result`.

    `engine` is an engine's name (`instance.engines()` lists those that
    apply) or a Python function `fn(instance) -> solution dict | assignment`
    run as an engine. `time_limit` is in seconds (None or 0: no limit);
    `seed` seeds randomised engines; `**params` are engine parameters
    (`serverpick.params()`), e.g. `kbest_max_subsets=500`.

    `threads` (HiGHS's, and the rayon pool of engines that solve models in
    parallel), `write_model` (a folder: every MILP/LP the exact engines
    build, as `.mps` or `model_format="lp"`, with a JSON sidecar) and
    `solver_log` (a file HiGHS's log is appended to) are the CLI's
    `--threads`, `--write-model`, `--model-format` and `--solver-log`.

    The GIL is released while it runs. Ctrl-C raises KeyboardInterrupt
    within a second; a HiGHS solve in progress cannot see it and finishes
    in the background at its time limit, its result dropped.

    A Python function runs on a thread of its own. It cannot be stopped
    from outside: at the time limit the run returns with status
    `time_limit` (`stop` says which limit), `stop_requested()` turns True
    inside the function, and the function runs on until it returns, its
    answer dropped (the interpreter waits for it at exit).
    """
    if callable(engine):
        if params:
            raise UsageError("engine parameters apply to built-in engines only")
        name = getattr(engine, "__name__", "python")
        rec = _serverpick._solve_with(instance, name, engine, _limit(time_limit), seed)
    else:
        solver = _solver(threads, write_model, model_format, solver_log)
        rec = _serverpick._solve(instance, engine, _limit(time_limit), seed, params, solver)
    return Result._from_record(rec)


def _solver(threads: Optional[int], write_model: Any, model_format: str, solver_log: Any) -> Dict[str, Any]:
    return {
        "threads": threads,
        "write_model": None if write_model is None else os.fspath(write_model),
        "model_format": model_format,
        "solver_log": None if solver_log is None else os.fspath(solver_log),
    }


def evaluate(instance: Instance, solution: Answer, root: Optional[int] = None) -> Evaluation:
    """Scores `solution` with the family's evaluator.

    `solution` is a solution dict (`{"assign": [...]}` …), a whole record
    (`Result.record`, a `solve --out` file's content) or, for families whose
    solution is an assignment, a list or numpy array of server/mirror
    indices. An SPD client-server solution also needs its `root`.
    """
    if root is not None:
        solution = {"root": int(root), "assign": solution}
    out = _serverpick._evaluate(instance, solution)
    return Evaluation(
        feasible=out["feasible"],
        objective=out["objective"],
        metrics=out["metrics"],
        reasons=out["reasons"],
        lines=[tuple(x) for x in out["lines"]],
    )


def _flags(options: Mapping[str, Any]) -> List[str]:
    """Keyword options as CLI flags: `from_matrix="m.txt"` → `--from-matrix
    m.txt`, `csv=True` → `--csv`, lists → `a,b,c`."""
    args: List[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple, np.ndarray)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, str(value)]
    return args


def gen(family: str, seed: int = 1, **options: Any) -> Union[Instance, List[Instance]]:
    """Generates instances with `serverpick gen FAMILY` (the same generators
    and checks); `**options` are its flags (`servers=20, clients=60,
    model="p2p"`; see `serverpick gen FAMILY --help`). One instance is
    returned as is, several (comma lists of sizes) as a list."""
    with tempfile.TemporaryDirectory(prefix="serverpick-gen-") as tmp:
        out = Path(tmp) / "out"
        if family == "spd" or options.get("paper_set"):
            out.mkdir()
            target = out
        else:
            target = out.with_suffix(".json")
        cli(["gen", family, "--seed", str(seed), *_flags(options), "--out", str(target)])
        files = sorted(target.glob("*.json")) if target.is_dir() else [target]
        made = [read(f) for f in files]
    return made[0] if len(made) == 1 else made


def _as_path(instance: Union[Instance, PathLike], folder: Path) -> str:
    if isinstance(instance, Instance):
        path = folder / f"{_safe(instance.name)}.json"
        n = 1
        while path.exists():
            n += 1
            path = folder / f"{_safe(instance.name)}-{n}.json"
        instance.write(path)
        return str(path)
    return os.fspath(instance)


def _paths(paths: Union[PathLike, Sequence[PathLike], None]) -> List[str]:
    if paths is None:
        return []
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def _safe(name: str) -> str:
    keep = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return keep or "instance"


def plan(
    family: str,
    instance: Union[Instance, PathLike],
    out: Optional[PathLike] = None,
    **options: Any,
) -> Dict[str, Any]:
    """Capacity planning, `serverpick plan FAMILY` (e.g. `plan("cma", inst,
    time_limit=60)`: which mirrors to open for each K, proven). Returns
    `plan.json`'s content; `out` keeps the whole folder (curve.csv,
    curve.svg, solutions)."""
    import json

    with tempfile.TemporaryDirectory(prefix="serverpick-plan-") as tmp:
        folder = Path(out) if out is not None else Path(tmp) / "plan"
        path = _as_path(instance, Path(tmp))
        cli(["plan", family, path, *_flags(options), "--out", str(folder)])
        return json.loads((folder / "plan.json").read_text())


def _engine_names(python_engines: Mapping[str, Any]) -> List[tuple]:
    pairs = []
    for name, given in python_engines.items():
        fn, only = given, []
        if isinstance(given, tuple) and len(given) == 2:
            fn, only = given[0], [given[1]] if isinstance(given[1], str) else list(given[1])
        if not callable(fn):
            raise UsageError(f"python_engines['{name}'] is not callable")
        try:
            inspect.signature(fn).bind(None)
        except TypeError as e:
            raise UsageError(f"python_engines['{name}'] must take one argument (the instance): {e}") from None
        except ValueError:
            pass  # builtins without a signature
        pairs.append((name, fn, only))
    return pairs


def bench(
    instances_or_paths: Union[Instance, PathLike, Iterable[Union[Instance, PathLike]]],
    engines: Optional[Sequence[str]] = None,
    python_engines: Optional[
        Mapping[str, Union[Callable[[Instance], Answer], Tuple[Callable[[Instance], Answer], Union[str, Sequence[str]]]]]
    ] = None,
    time_limit: Optional[float] = 60.0,
    repeat: int = 1,
    out: Optional[PathLike] = None,
    seed: int = 1,
    jobs: int = 1,
    resume: bool = False,
    progress: bool = False,
    check: bool = True,
    threads: Optional[int] = None,
    write_model: Optional[PathLike] = None,
    model_format: str = "mps",
    solver_log: Optional[PathLike] = None,
    solutions: Union[PathLike, Sequence[PathLike], None] = None,
    solutions_engine: Optional[str] = None,
    **params: Any,
) -> List[Dict[str, Any]]:
    """Benchmarks engines over instances: the rows of `results.jsonl`.

    `instances_or_paths`: Instances, instance files or folders. `engines`:
    built-in engine names (None: every engine that applies).
    `python_engines`: `{"name": fn}`, each `fn(instance) -> solution dict |
    assignment` run beside them — timed, evaluated, cross-checked; an
    exception gives an `error` row (reason `raised`) with its last line.
    `{"name": (fn, "cma")}` runs it on those families or problems only.
    `out` writes the same folder as `serverpick bench --out` (results.jsonl,
    results.csv, summary.md with gaps, plots); without it a scratch folder
    is used and removed. `jobs`: parallel units (1 keeps Python engines'
    times free of waiting for the GIL; 0 = one per core).

    Ctrl-C keeps the finished rows in `out` (resume with `resume=True`) and
    raises KeyboardInterrupt. Conflicts between engines (a claimed optimum
    or bound beaten: a bug in one of them) raise SolverError once every
    output is written, with `.conflicts` and `.rows` (the CLI's exit 1);
    `check=False` warns instead and returns the rows. `threads`,
    `write_model`, `model_format` and `solver_log` are as in `solve`.

    `solutions`: folders of solution files produced elsewhere (one or a
    list), imported as rows like `serverpick bench --solutions DIR`: each
    file is matched to its instance (its `instance_sha256`, else its
    instance name), evaluated, its claims checked, and added as a row of
    the engine it names (or of `solutions_engine`).
    """
    items: List[Union[Instance, PathLike]]
    if isinstance(instances_or_paths, (Instance, str, os.PathLike)):
        items = [instances_or_paths]
    else:
        items = list(instances_or_paths)
    pairs = _engine_names(python_engines or {})
    with tempfile.TemporaryDirectory(prefix="serverpick-bench-") as tmp:
        folder = Path(out) if out is not None else Path(tmp) / "bench"
        inst_dir = (folder / "instances") if out is not None else Path(tmp) / "instances"
        if any(isinstance(i, Instance) for i in items):
            inst_dir.mkdir(parents=True, exist_ok=True)
        paths = [_as_path(i, inst_dir) for i in items]
        rows, conflicts = _serverpick._bench(
            paths,
            str(folder),
            list(engines) if engines is not None else None,
            pairs,
            _limit(time_limit),
            int(repeat),
            int(seed),
            int(jobs),
            bool(resume),
            bool(progress),
            params,
            _solver(threads, write_model, model_format, solver_log),
            _paths(solutions),
            solutions_engine,
        )
    if conflicts and check:
        err = SolverError(f"{len(conflicts)} conflict(s): " + "; ".join(conflicts))
        err.conflicts = conflicts  # type: ignore[attr-defined]
        err.rows = rows  # type: ignore[attr-defined]
        raise err
    for c in conflicts:
        warnings.warn(f"serverpick bench: conflict: {c}", RuntimeWarning, stacklevel=2)
    return rows

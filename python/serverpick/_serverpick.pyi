"""Type stubs of the compiled module (re-exported by `serverpick`)."""

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

PathLike = Union[str, "os.PathLike[str]"]
ArrayLike = Union[npt.ArrayLike, Sequence[Sequence[float]], Sequence[float]]

class Error(Exception):
    """Every error serverpick raises (the CLI's message as its text)."""

class InputError(Error):
    """Bad input data; `file` and `field` name where (`field` None: the whole file)."""

    file: Optional[str]
    field: Optional[str]

class UsageError(Error):
    """A request that cannot be served: an unknown engine or parameter, a bad value."""

class SolverError(Error):
    """The LP/MILP backend failed, or runs contradict each other."""

    conflicts: List[str]
    rows: List[Dict[str, Any]]

class Instance:
    """An instance of any family; numpy views of its data as attributes."""

    @property
    def family(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def problem(self) -> str: ...
    def engines(self) -> List[str]: ...
    def features(self) -> Dict[str, Any]: ...
    def to_json(self, indent: Optional[int] = None) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def write(self, path: PathLike) -> None: ...
    def arrays(self) -> Dict[str, Union[np.ndarray, float]]: ...
    # SPD/SPDVR: access, server_latency, distance (ndarray), mu (float),
    # model (str); CMA: delay, capacity (ndarray), open_cost, players
    # (ndarray, or None when the file has none); and the file's other
    # scalar fields.
    def __getattr__(self, name: str) -> Any: ...

def families() -> List[str]: ...
def engines(family: Optional[str] = None) -> List[str]: ...
def params() -> List[Dict[str, str]]: ...
def read(path: PathLike, problem: Optional[str] = None) -> Instance: ...
def from_json(data: Union[str, Dict[str, Any]], name: Optional[str] = None) -> Instance: ...
def spd_instance(
    access: ArrayLike,
    server_latency: ArrayLike,
    mu: float,
    model: str = "cs",
    name: Optional[str] = None,
) -> Instance: ...
def cma_instance(
    delay: ArrayLike,
    capacity: ArrayLike,
    name: Optional[str] = None,
    players: Optional[ArrayLike] = None,
) -> Instance: ...
def cli(args: List[str]) -> int: ...
def _solve(
    instance: Instance,
    engine: str,
    time_limit: Optional[float],
    seed: int,
    params: Optional[Dict[str, Any]] = None,
    solver: Optional[Dict[str, Any]] = None,
) -> Dict[str, Any]: ...
def _solve_with(
    instance: Instance, name: str, function: Any, time_limit: Optional[float], seed: int
) -> Dict[str, Any]: ...
def _evaluate(instance: Instance, solution: Any) -> Dict[str, Any]: ...
def _bench(
    paths: List[str],
    out: str,
    engines: Optional[List[str]],
    python_engines: List[Tuple[str, Any, List[str]]],
    time_limit: Optional[float],
    repeat: int,
    seed: int,
    jobs: int,
    resume: bool,
    progress: bool,
    params: Optional[Dict[str, Any]] = None,
    solver: Optional[Dict[str, Any]] = None,
    solutions: List[str] = ...,
    solutions_engine: Optional[str] = None,
) -> Tuple[List[Dict[str, Any]], List[str]]: ...

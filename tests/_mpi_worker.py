"""Run on each rank by tests/_mpi.py: every ``check_*(comm)`` of a file, each rank's outcomes
written to ``OUT/rank<r>.json`` (None for a pass, the traceback for a failure)."""

import importlib.util
import json
import os
import sys
import traceback


def main(path: str, out: str) -> None:
    from fnet.distributed import Communicator  # noqa: PLC0415  (only on a rank, never when collected)

    spec = importlib.util.spec_from_file_location("_mpi_checks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    comm = Communicator()
    outcomes = {}
    for name in [n for n in vars(module) if n.startswith("check_")]:
        try:
            getattr(module, name)(comm)
            outcomes[name] = None
        except Exception:
            outcomes[name] = traceback.format_exc()
        comm.barrier()
    report = os.path.join(out, f"rank{comm.rank}.json")
    with open(report + ".tmp", "w") as f:
        json.dump(outcomes, f)
    os.replace(report + ".tmp", report)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

"""Generate the five financial-analyst persistence scenarios of DC-Bench.

    python -m benchmarks.scenario_gen.fin_persistence

writes `scenarios/financial_analyst/persistence/{10msg_scat,20msg_early,vol_dist,100_corr,
50_corr}.yaml`. Every random choice comes from a `random.Random` with a fixed seed, so the
output is byte-identical on every run; the generated files are committed too.

- 10msg_scat: three corrections scattered over a 10-user-message session (casual add-on,
  buried mid-message, terse), plus a one-off that must not persist.
- 20msg_early: one correction in the 2nd of 20 user messages, then 18 messages of other work.
- vol_dist: one data-conditional correction at message 64 of a 100-user-message session full of
  routine tool output.
- 100_corr / 50_corr: 100 (25 sessions x 4) and 50 (one per session) distinct corrections;
  the test triggers three of them and must not receive unrelated sector rules.
"""

from pathlib import Path

from benchmarks.scenario_gen.fin_common import GENERATOR
from benchmarks.scenario_gen.fin_long_sessions import (
    build_10msg_scat,
    build_20msg_early,
    build_vol_dist,
)
from benchmarks.scenario_gen.fin_many_corrections import build_50_corr, build_100_corr
from benchmarks.scenario_gen.fin_session import SCENARIO_DIR, dump_yaml

BUILDERS = {
    "10msg_scat": build_10msg_scat,
    "20msg_early": build_20msg_early,
    "vol_dist": build_vol_dist,
    "100_corr": build_100_corr,
    "50_corr": build_50_corr,
}


def main(root: Path = SCENARIO_DIR) -> list[Path]:
    """Write the scenarios under `root` (the committed folder by default); return the paths."""
    paths = [root / "persistence" / f"{name}.yaml" for name in BUILDERS]
    for path, build in zip(paths, BUILDERS.values(), strict=True):
        dump_yaml(build(), path, GENERATOR)
    return paths


if __name__ == "__main__":
    main()

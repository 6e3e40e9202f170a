"""Score every user turn of DC-Bench seeds with the default turn reader.

Shows, per scenario, each seed user turn as capture reads it (pasted material removed), its
probability of being lasting (a standing correction or a withdrawal), the reader's kind, and
where it falls against the reader's bands: `active` (a rule at once), `candidate` (stored,
never injected until it recurs) or below (nothing). For reading failures: a lesson whose turn
is below the bands is a reader miss, not a compile or delivery problem.

Run: python benchmarks/seed_turns.py [-s FOLDER] [--id PATTERN] [--below P]
"""

from __future__ import annotations

import argparse

from dctx.bench.approaches._graph import to_session
from dctx.bench.loader import load_scenarios
from dctx.capture.reading.default import bands_for, default_reader
from dctx.capture.turns import user_turn_inputs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-s", "--scenarios", default=None, help="folder; default: the bundled set")
    ap.add_argument("--id", default="*", help="only scenario ids matching this glob")
    ap.add_argument("--below", type=float, default=1.01, help="only turns with p below this")
    args = ap.parse_args()
    reader = default_reader()
    bands = bands_for(reader)
    print(f"reader {reader.id}: active >= {bands.active:.3f}, candidate >= {bands.candidate:.3f}")
    for loaded in load_scenarios(args.scenarios, ids=[args.id]):
        scenario = loaded.scenario
        print(f"\n{scenario.id}")
        for seed in scenario.seed:
            turns = user_turn_inputs(to_session(seed))
            for (_, turn), verdict in zip(turns, reader.read([t for _, t in turns]), strict=True):
                if verdict.p_lasting >= args.below:
                    continue
                band = (
                    "ACTIVE"
                    if verdict.p_lasting >= bands.active
                    else "cand"
                    if verdict.p_lasting >= bands.candidate
                    else "-"
                )
                said = " ".join(turn.text.split())[:140]
                kind = verdict.kind.value
                print(f"  {verdict.p_lasting:.3f} {band:6} {kind:20} {seed.actor}: {said}")


if __name__ == "__main__":
    main()

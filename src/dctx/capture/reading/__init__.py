"""Reading user turns: what a turn means (a standing correction, a one-off fix, a task...).

One interface (`base.TurnClassifier`) with implementations side by side, measured by the same
evaluation (`dctx bench real`): `learned` (the default: a calibrated classifier over the
shipped MiniLM vectors and structural features, weights in `model/`), `heuristic` (the
keyword cues of capture/cues.py) and `llm` (`LLMAftermathClassifier`, a configured model
behind the AftermathClassifier seam, which decides the uncertain band and may overrule the
learned one).
"""

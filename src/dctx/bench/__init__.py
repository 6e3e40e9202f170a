"""DC-Bench: does a behavioral memory apply what it learned? (contract: docs/DCBENCH.md)

Modules: `schema` / `loader` (scenario files), `replay` + `scoring` (offline delivery mode),
`live` (agent + judge), `approaches` (the systems under test, a registry), `runner`
(process pool), `report` (tables, JSON, chart), `cli` (`dctx bench`). Nothing is imported
here, so `import dctx.bench.<module>` stays cheap.
"""

"""The bundled offline demo: `dctx demo` (data in `data/`, run by `runner.py`)."""

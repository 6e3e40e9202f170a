"""The real-conversation benchmark: labelled user turns of public, permissively licensed
sessions of people working with agents (benchmarks/realconv/data/), read by capture as it
would read them in the field, and scored on what a good memory should keep."""

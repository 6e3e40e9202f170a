"""Auditing a rulebook: which rules went unused (stale), which need a person (flagged), and a
one-screen health report. Reads the store and the rule events that outcome tracking writes
(compile/outcomes.py); changes nothing by itself (archiving is `Memory.archive`)."""

"""Whom a rule reaches, as the words say: a team marker shares it ("for the whole team",
"company policy"), a personal one keeps it the speaker's own ("for me", "my texts").

What the words do not mark is decided elsewhere: by the speaker's role (capture/roles.py), by
a decision of the organisation the turn passes on (capture/reading/announcements.py), and by
the rule a new value replaces (compile/maintain.py: a team rule said again is the team's).
"""

from __future__ import annotations

import re

# "for the team" shares a rule; "to the team mailbox", "page the team that owns it" and "from
# outside the team" name a team, they do not say who the rule is for
SHARED_SCOPE = re.compile(
    r"\b(everyone|every one of us|(?:for|across) the team|the (whole|entire) (\w+ )?team|"
    r"all of us|our team|"
    r"team[- ]wide|"
    r"(comes|coming) from (legal|compliance|security|hr|finance|management)|"
    r"company[- ]wide|org[- ]wide|company policy|our policy|team policy|for all (users|agents|"
    r"analysts|reps|of us)|all agents|across the board|standard practice|house style)\b",
    re.IGNORECASE,
)
PERSONAL = re.compile(r"\b(for me|personally|my|mine|just me|i like|i prefer)\b", re.IGNORECASE)
# the marker with the preposition that binds it, taken out of the rule's text: "$12 an hour for
# everyone, not $10" is "$12 an hour, not $10", never "$12 an hour for , not $10"
TEAM_MARKER = re.compile(r"(?:\b(?:for|to)\s+)?" + SHARED_SCOPE.pattern, re.IGNORECASE)

"""Rulebook export/import as one JSON document (rules with their provenance).

    {"format": "dctx-rules", "version": 1, "exported_at": "...", "namespace": "...",
     "embedder": "...", "rules": [{...rule..., "provenance": {"evidence": [...],
                                                             "trigger_node": {...} | null}}]}

Import validates the whole document before writing anything, recomputes vectors with the
target database's embedder, and writes everything in one batch (all or nothing).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from dctx.errors import ConfigError, InvalidIdentifierError, TraceFormatError
from dctx.models import DecisionNode, Edge, EdgeType, Evidence, EvidenceKind, Rule, utcnow
from dctx.store.base import CaptureBatch
from dctx.validation import check_value, identifier, optional_identifier

FORMAT = "dctx-rules"
VERSION = 1


def export_document(mem: Any) -> dict[str, Any]:
    rules: list[Rule] = mem.rules()
    out = []
    for rule in rules:
        info = mem.explain(rule.id)
        out.append(
            {
                **info["rule"],
                "provenance": {
                    "evidence": info["evidence"],
                    "trigger_node": info["trigger_node"],
                },
            }
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": utcnow(),
        "namespace": mem.namespace,
        "embedder": mem.embedder.id,
        "rules": out,
    }


def export_rules(mem: Any, file: str) -> int:
    doc = export_document(mem)
    text = json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if file == "-":
        sys.stdout.write(text)
    else:
        try:
            Path(file).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot write {file}: {exc.strerror or exc}") from exc
    return len(doc["rules"])


def _bad(file: str, where: str, reason: str) -> ConfigError:
    return ConfigError(f"{file}: {where}: {reason}; expected a file written by `dctx rules export`")


def _check_ids(rule: Rule, file: str, where: str) -> None:
    scope = rule.scope
    try:
        rule.id = identifier(rule.id, "id")
        scope.namespace = identifier(scope.namespace, "scope.namespace")
        scope.skill = optional_identifier(scope.skill, "scope.skill")
        scope.actor = optional_identifier(scope.actor, "scope.actor")
        rule.actor = optional_identifier(rule.actor, "actor")
    except InvalidIdentifierError as exc:
        raise _bad(file, where, str(exc)) from None


def parse_document(doc: Any, file: str) -> tuple[list[Rule], list[Evidence], list[DecisionNode]]:
    """Validate an export document; every problem names the rule index and field."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise _bad(file, "top level", f"'format' must be {FORMAT!r}")
    if doc.get("version") != VERSION:
        raise _bad(file, "top level", f"unsupported version {doc.get('version')!r}")
    raw_rules = doc.get("rules")
    if not isinstance(raw_rules, list):
        raise _bad(file, "top level", "'rules' must be a list")
    rules: list[Rule] = []
    evidence: dict[str, Evidence] = {}
    nodes: dict[str, DecisionNode] = {}
    for i, raw in enumerate(raw_rules):
        where = f"rules[{i}]"
        if not isinstance(raw, dict):
            raise _bad(file, where, "must be an object")
        try:
            check_value(raw, field=where)  # nesting and storable text (no NUL, no surrogate)
        except TraceFormatError as exc:
            raise _bad(file, where, exc.reason) from None
        data = {k: v for k, v in raw.items() if k != "provenance"}
        try:
            rule = Rule.from_dict(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise _bad(file, where, f"not a valid rule ({type(exc).__name__}: {exc})") from exc
        if not isinstance(rule.text, str) or not rule.text.strip():
            raise _bad(file, where, "'text' must be a non-empty string")
        _check_ids(rule, file, where)
        rules.append(rule)
        prov = raw.get("provenance") or {}
        if not isinstance(prov, dict):
            raise _bad(file, where, "'provenance' must be an object")
        for j, ev in enumerate(prov.get("evidence") or []):
            try:
                item = Evidence(**{**ev, "kind": EvidenceKind(ev["kind"])})
            except (KeyError, TypeError, ValueError) as exc:
                raise _bad(file, f"{where}.provenance.evidence[{j}]", str(exc)) from exc
            evidence[item.id] = item
        node = prov.get("trigger_node")
        if node is not None:
            try:
                nodes[node["id"]] = DecisionNode(**node)
            except (KeyError, TypeError) as exc:
                raise _bad(file, f"{where}.provenance.trigger_node", str(exc)) from exc
    ids = [r.id for r in rules]
    if len(set(ids)) != len(ids):
        raise _bad(file, "rules", "the same rule id appears twice")
    return rules, list(evidence.values()), list(nodes.values())


def import_rules(mem: Any, file: str) -> int:
    try:
        text = Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {file}: {exc}") from exc
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise _bad(file, "top level", f"invalid JSON ({exc})") from exc
    rules, evidence, nodes = parse_document(doc, file)
    batch = CaptureBatch(rules=rules, evidence=evidence, nodes=nodes)
    if rules:
        vecs = mem.embedder.embed(
            [r.text for r in rules] + [r.trigger.text or r.text for r in rules]
        )
        for i, rule in enumerate(rules):
            batch.rule_vectors[rule.id] = (vecs[i], vecs[len(rules) + i])
    node_ids = {n.id for n in nodes}
    ev_ids = {e.id for e in evidence}
    for rule in rules:
        if rule.trigger.node_id in node_ids:
            batch.edges.append(Edge(rule.id, EdgeType.FORGED_FROM, rule.trigger.node_id or ""))
        batch.edges.extend(
            Edge(rule.id, EdgeType.FORGED_FROM, e) for e in rule.evidence_ids if e in ev_ids
        )
    if nodes and mem.embed_nodes:
        vecs = mem.embedder.embed([n.text for n in nodes] + [n.accumulated for n in nodes])
        for i, node in enumerate(nodes):
            batch.node_vectors[node.id] = (vecs[i], vecs[len(nodes) + i])
    mem.store.write(batch)
    return len(rules)

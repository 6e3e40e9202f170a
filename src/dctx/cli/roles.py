"""`dctx roles`: who may teach the agent (role policies); `dctx review`: correct a finished
transcript after the fact."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from dctx.cli import _common as c
from dctx.cli._capture_report import capture_summary
from dctx.cli._render import print_rules
from dctx.errors import RolePolicyError

app = typer.Typer(
    name="roles",
    no_args_is_help=False,
    invoke_without_command=True,
    help="Who may teach the agent: the role policy of a namespace or skill.",
)

SkillOption = Annotated[
    str | None,
    typer.Option(
        envvar="DCTX_SKILL",
        help="The skill the policy is for (default: the whole namespace).",
        show_default=False,
    ),
]


def _print_policy(policy: Any, where: str, *, as_json: bool) -> None:
    if as_json:
        c.print_json(policy.to_dict())
        return
    table = Table(title=f"Role policy of {where} (unmarked user turns: {policy.default_role})")
    table.add_column("role")
    table.add_column("may create")
    for role, grant in policy.to_dict()["grants"].items():
        table.add_row(role, grant)
    c.console().print(table)
    c.console().print("Tool lessons are learned from every session, whatever the role.")


def _where(namespace: str, skill: str | None) -> str:
    return f"skill {skill!r} in namespace {namespace!r}" if skill else f"namespace {namespace!r}"


@app.callback()
def roles(
    ctx: typer.Context,
    skill: SkillOption = None,
    as_json: c.JsonOption = False,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Show the role policy in force (the skill's own, else the namespace's, else the
    default: an unmarked user is the operator), or run one of the subcommands below.

    Roles: operator (runs the agent; the user of an assistant), end_user (a customer the
    agent serves), reviewer (annotates finished transcripts). Grants: rules (in the
    speaker's scope: their own, or the team's when said so), team (for every actor of the
    skill), personal (only a preference stated as their own, for them alone), none.

    Examples:

        dctx roles --skill airline_agent

        dctx roles set --skill airline_agent --default-role end_user

        dctx roles set --grant end_user=personal --json
    """
    c.remember(ctx, db, embedder, namespace)
    if ctx.invoked_subcommand is not None:
        return
    cfg = c.settings(ctx, db, embedder, namespace)
    with c.closing(c.open_memory(cfg, must_exist=True)) as mem:
        policy = mem.role_policy(skill=skill, namespace=cfg.namespace)
    _print_policy(policy, _where(cfg.namespace, skill), as_json=as_json)


def _grants(values: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        role, sep, grant = value.partition("=")
        if not sep:
            raise RolePolicyError("grant", f"{value!r} is not ROLE=GRANT (e.g. end_user=none)")
        out[role.strip()] = grant.strip()
    return out


@app.command("set")
def set_policy(
    ctx: typer.Context,
    skill: SkillOption = None,
    default_role: Annotated[
        str | None,
        typer.Option(
            help="Who an unmarked user turn is: operator, end_user or reviewer.",
            show_default=False,
        ),
    ] = None,
    grant: Annotated[
        list[str] | None,
        typer.Option(
            metavar="ROLE=GRANT",
            help="What a role may create: rules, team, personal or none (repeatable).",
            show_default=False,
        ),
    ] = None,
    as_json: c.JsonOption = False,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Set the role policy of the namespace or of one skill. What is not given keeps the
    value in force there now. An unknown role or grant is an error naming the field.

    Examples:

        dctx roles set --skill airline_agent --default-role end_user

        dctx roles set --grant end_user=personal --grant reviewer=rules
    """
    cfg = c.settings(ctx, db, embedder, namespace)
    with c.closing(c.open_memory(cfg)) as mem:
        now = mem.role_policy(skill=skill, namespace=cfg.namespace).to_dict()
        if default_role is not None:
            now["default_role"] = default_role
        now["grants"].update(_grants(grant or []))
        policy = mem.set_role_policy(now, skill=skill, namespace=cfg.namespace)
    _print_policy(policy, _where(cfg.namespace, skill), as_json=as_json)


@app.command("reset")
def reset(
    ctx: typer.Context,
    skill: SkillOption = None,
    as_json: c.JsonOption = False,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Remove the policy set for the namespace or the skill: the next one up applies again.

    Example:

        dctx roles reset --skill airline_agent
    """
    cfg = c.settings(ctx, db, embedder, namespace)
    with c.closing(c.open_memory(cfg, must_exist=True)) as mem:
        policy = mem.set_role_policy(None, skill=skill, namespace=cfg.namespace)
    _print_policy(policy, _where(cfg.namespace, skill), as_json=as_json)


def review(
    ctx: typer.Context,
    conversation_id: Annotated[
        str, typer.Argument(help="The captured conversation the review is about.")
    ],
    correction: Annotated[
        str, typer.Argument(help="What the agent should have done (or should do from now on).")
    ],
    at: Annotated[
        int,
        typer.Option(
            "--at",
            metavar="MESSAGE_INDEX",
            help="Index of the message the correction is about (as in the trace file).",
        ),
    ],
    by: Annotated[
        str,
        typer.Option("--by", envvar="DCTX_REVIEWER", help="Who reviews (the reviewer's name)."),
    ],
    as_json: c.JsonOption = False,
    db: c.DbOption = None,
    embedder: c.EmbedderOption = None,
    namespace: c.NamespaceOption = None,
) -> None:
    """Add a reviewer's correction to a captured conversation, anchored to the message it
    corrects. It compiles like a correction made in the conversation; with the default role
    policy it becomes a rule for every actor of the conversation's skill. `dctx rules show`
    names the reviewer, the time and the message.

    Example:

        dctx review tau-3-trial-0 --at 14 --by maria "Check the fare rules before refunding."
    """
    cfg = c.settings(ctx, db, embedder, namespace)
    with c.closing(c.open_memory(cfg, must_exist=True)) as mem:
        report = mem.add_review(
            conversation_id, at, correction, reviewer=by, namespace=cfg.namespace
        )
    if as_json:
        c.print_json(capture_summary([report]))
        return
    out = c.console()
    out.print(f"Review of {conversation_id!r} at message {at} by {by!r}:", markup=False)
    if report.added:
        print_rules(out, report.added, f"Learned {len(report.added)} new rules:")
    if report.changed:
        print_rules(out, report.changed, f"Changed {len(report.changed)} existing rules:")
    for line in report.log:
        out.print(f"  {line}", markup=False)

"""`flask jobs ...`: parse a posting from a file; load the starter set."""
from __future__ import annotations

import json
from pathlib import Path

import click
from flask.cli import AppGroup
from flask import current_app

from skillmap.parse import parse_job


def read_posting(path: str, limit: int) -> str:
    """The file's text, or a ClickException with a one-line reason."""
    file = Path(path)
    if not file.exists():
        raise click.ClickException(f"{path}: no such file")
    if not file.is_file():
        raise click.ClickException(f"{path}: not a regular file")
    size = file.stat().st_size
    if size > limit:
        raise click.ClickException(f"{path}: {size // 1024} KB is over the {limit // 1024} KB limit")
    raw = file.read_bytes()
    if b"\x00" in raw:
        raise click.ClickException(f"{path}: binary file, expected text")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise click.ClickException(f"{path}: not UTF-8 text") from None
    if not text.strip():
        raise click.ClickException(f"{path}: the file is empty")
    return text


def render_table(result: dict) -> str:
    """A readable report of a parse."""
    salary = result["salary"]
    salary_text = (f"{salary['min']:,.0f} - {salary['max']:,.0f} {salary['currency']} per {salary['period']}"
                   if salary else "not stated")
    tracks = "  ".join(f"{t} {s:.2f}" for t, s in sorted(result["tracks"].items(), key=lambda kv: -kv[1]))
    lines = [
        f"Title          {result['title'] or '-'}",
        f"Primary track  {result['primary_track']}",
        f"Track scores   {tracks}",
        f"Seniority      {result['seniority']}",
        f"Min. years     {result['min_years'] if result['min_years'] is not None else 'not stated'}",
        f"Degree         {result['degree'] or 'not stated'}",
        f"Salary         {salary_text}",
        "",
        f"Skills ({len(result['skills'])})",
    ]
    width = max([len(s["name"]) for s in result["skills"]] + [5])
    lines.append(f"  {'SKILL'.ljust(width)}  {'CATEGORY'.ljust(22)}  {'NEED'.ljust(9)}  EVIDENCE")
    for skill in result["skills"]:
        evidence = skill["evidence"][0]["text"] if skill["evidence"] else ""
        if len(evidence) > 70:
            evidence = evidence[:67] + "..."
        need = "required" if skill["required"] else "preferred"
        lines.append(f"  {skill['name'].ljust(width)}  {skill['category'].ljust(22)}  {need.ljust(9)}  {evidence}")
    return "\n".join(lines)


@click.group(cls=AppGroup, help="Parse and manage job descriptions.")
def jobs():
    pass


@jobs.command("parse")
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print the parse as JSON.")
@click.option("--title", help="The job title, when the file does not start with it.")
def parse_command(file, as_json, title):
    """Parse the job description in FILE into the GPU skill taxonomy."""
    text = read_posting(file, current_app.config["JOB_TEXT_MAX_BYTES"])
    result = parse_job(text, title=title)
    click.echo(json.dumps(result, indent=2, ensure_ascii=False) if as_json else render_table(result))


@jobs.command("load-starter")
@click.option("--seeds", type=click.Path(file_okay=False), default=None,
              help="Folder with the seed posting (default: ../shared/seeds beside the project).")
def load_starter_command(seeds):
    """Load the starter jobs (idempotent)."""
    from .starter import load_starter

    added = load_starter(seeds)
    click.echo(f"starter jobs: {added} added")

"""`flask jobs ...`: parse a posting from a file; load the starter set."""
from __future__ import annotations

import json
from pathlib import Path

import click
from flask.cli import AppGroup
from flask import current_app

from skillmap.parse import ParseError, is_blank, parse_job, parse_jobs


def decode_posting(raw: bytes, name: str) -> str:
    """Text from bytes, or a ClickException naming the input."""
    if b"\x00" in raw:
        raise click.ClickException(f"{name}: binary file, expected text")
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark is not part of the posting
    except UnicodeDecodeError:
        raise click.ClickException(f"{name}: not UTF-8 text") from None
    if is_blank(text):
        raise click.ClickException(f"{name}: the file is empty")
    return text


def read_stdin(limit: int) -> str:
    with click.open_file("-", "rb") as stdin:
        raw = stdin.read(limit + 1)
    if len(raw) > limit:
        raise click.ClickException(f"-: standard input is over the {limit // 1024} KB limit")
    return decode_posting(raw, "-")


def read_posting(path: str, limit: int) -> str:
    """The file's text ("-" is standard input), or a ClickException with a one-line reason."""
    if path == "-":
        return read_stdin(limit)
    file = Path(path)
    if not file.exists():
        raise click.ClickException(f"{path}: no such file")
    if not file.is_file():
        raise click.ClickException(f"{path}: not a regular file")
    size = file.stat().st_size
    if size > limit:
        raise click.ClickException(f"{path}: {size // 1024} KB is over the {limit // 1024} KB limit")
    return decode_posting(file.read_bytes(), path)


def render_table(result: dict) -> str:
    """A readable report of a parse."""
    salary = result["salary"]
    salary_text = (f"{salary['min']:,.0f} - {salary['max']:,.0f} {salary['currency']} per {salary['period']}"
                   if salary else "not stated")
    tracks = "  ".join(f"{t} {s:.2f}" for t, s in sorted(result["tracks"].items(), key=lambda kv: -kv[1]))
    paths = "; ".join(f"{p['degree'] or 'no degree'} + {p['min_years'] if p['min_years'] is not None else '?'} years"
                      for p in result["experience_paths"]) or "not stated"
    lines = [
        f"Title          {result['title'] or '-'}",
        f"Primary track  {result['primary_track'] or 'none (no GPU-engineering skills named)'}",
        f"Track scores   {tracks}",
        f"Seniority      {result['seniority'] or 'not stated'}",
        f"Min. years     {result['min_years'] if result['min_years'] is not None else 'not stated'}",
        f"Degree         {result['degree'] or 'not stated'}",
        f"Paths          {paths}",
        f"Salary         {salary_text}",
        "",
        f"Skills ({len(result['skills'])})",
    ]
    width = max([len(s["name"]) for s in result["skills"]] + [5])
    lines.append(f"  {'SKILL'.ljust(width)}  {'CATEGORY'.ljust(22)}  {'NEED'.ljust(9)}  EVIDENCE")
    order = {"required": 0, "preferred": 1, "mentioned": 2}
    result = dict(result, skills=sorted(result["skills"], key=lambda s: order[s["need"]]))
    for skill in result["skills"]:
        evidence = skill["evidence"][0]["text"] if skill["evidence"] else ""
        if len(evidence) > 70:
            evidence = evidence[:67] + "..."
        need = skill["need"]
        lines.append(f"  {skill['name'].ljust(width)}  {skill['category'].ljust(22)}  {need.ljust(9)}  {evidence}")
    return "\n".join(lines)


@click.group(cls=AppGroup, help="Parse and manage job descriptions.")
def jobs():
    pass


@jobs.command("parse")
@click.argument("files", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the parse as JSON.")
@click.option("--title", help="The job title, when the text does not start with it (one input only).")
def parse_command(files, as_json, title):
    """Parse the job descriptions in FILES ("-" reads standard input) into the GPU skill taxonomy.

    One input prints a table (or JSON with --json); several print one JSON object per line, each
    with its "file". An unreadable input is reported on standard error and the others still parse;
    the exit status is then 1.
    """
    limit = current_app.config["JOB_TEXT_MAX_BYTES"]
    if len(files) == 1:
        text = read_posting(files[0], limit)
        try:
            result = parse_job(text, title=title)
        except ParseError as err:
            raise click.ClickException(f"{files[0]}: {err}") from None
        click.echo(json.dumps(result, indent=2, ensure_ascii=False) if as_json else render_table(result))
        return
    if title:
        raise click.UsageError("--title applies to a single input")
    if files.count("-") > 1:
        raise click.UsageError("standard input (-) can be read once")
    readable, failed = [], 0
    for name in files:
        try:
            readable.append((name, read_posting(name, limit)))
        except click.ClickException as err:
            click.echo(f"Error: {err.message}", err=True)
            failed += 1
    for (name, _), result in zip(readable, parse_jobs([text for _, text in readable])):
        click.echo(json.dumps({"file": name, **result}, ensure_ascii=False))
    if failed:
        raise SystemExit(1)


@jobs.command("reparse")
@click.option("--all", "all_jobs", is_flag=True,
              help="Parse every stored job again, not only those an older parser read.")
def reparse_command(all_jobs):
    """Parse stored jobs again with the current parser (after an upgrade)."""
    from .service import reparse_jobs

    done, total = reparse_jobs(all_jobs=all_jobs)
    click.echo(f"jobs re-parsed: {done} of {total}")


@jobs.command("load-starter")
@click.option("--seeds", type=click.Path(file_okay=False), default=None,
              help="Folder with the seed posting (default: ../shared/seeds beside the project).")
def load_starter_command(seeds):
    """Load the starter jobs (idempotent)."""
    from .starter import load_starter

    added = load_starter(seeds)
    click.echo(f"starter jobs: {added} added")

"""`flask tasks list` and `flask tasks show SLUG`: the catalog the API serves, in a terminal."""
import json

import click

from . import catalog, coverage


@click.group("tasks", help="The hands-on tasks candidates solve.")
def tasks():
    pass


@tasks.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (as GET /api/v1/tasks).")
def list_tasks(as_json):
    """Every task: slug, difficulty, title, skills."""
    items = catalog.all_summaries()
    if as_json:
        click.echo(json.dumps({"items": items}, indent=2))
        return
    width = max(len(t["slug"]) for t in items)
    for t in items:
        skills = ", ".join(s["id"] for s in t["skills"])
        click.echo(f"{t['slug']:<{width}}  {t['difficulty']:<6}  {t['title']}  [{skills}]")


@tasks.command("show")
@click.argument("slug")
@click.option("--style", type=click.Choice(list(catalog.gpu_tasks.STYLES)), default=None,
              help="Which starter of a CuPy task to print (default raw); design and testbench "
                   "tasks have one starter.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (as GET /api/v1/tasks/SLUG).")
@click.option("--starter-only", is_flag=True, help="Print only the starter code (to save as a file).")
def show_task(slug, style, as_json, starter_only):
    """A task's statement, signature, arguments, check, samples and starter code."""
    try:
        detail = catalog.detail(catalog.task_or_error(slug))
    except catalog.UnknownTask as err:
        raise click.ClickException(f"{err}; see `flask tasks list`") from None
    starters = detail["starters"]
    if style is None:
        style = "raw" if "raw" in starters else next(iter(starters))
    elif style not in starters:
        raise click.BadParameter(f"{slug} has no {style!r} starter; it has: {', '.join(starters)}",
                                 param_hint="--style")
    if starter_only:
        click.echo(starters[style], nl=False)
        return
    if as_json:
        click.echo(json.dumps(detail, indent=2))
        return
    click.echo(detail["statement"].rstrip())
    click.echo("")
    if detail.get("ports"):
        click.echo(f"Kind        {detail['kind_label']}")
        click.echo("Module")
        click.echo(detail["signature"])
        for p in detail["ports"]:
            click.echo(f"  {p['name']:<10} {p['direction']:<6} {p['width']:<18} {p['note']}")
        click.echo(f"Check       {detail['check']}")
    else:
        click.echo(f"Signature   {detail['signature']}")
        for a in detail["args"]:
            click.echo(f"  {a['name']:<8} {a['role']:<6} {a['dtype']:<8} {a['shape'] or ''}")
        tol = ", ".join(f"{k}={v}" for k, v in detail["tolerance"].items())
        click.echo(f"Check       {detail['check']} ({tol or 'exact'})")
    samples = "; ".join(f"{s['name']}: " + ", ".join(f"{k}={v}" for k, v in s["sizes"].items())
                        for s in detail["samples"])
    click.echo(f"Samples     {samples}")
    click.echo(f"Skills      {', '.join(s['name'] for s in detail['skills'])}")
    click.echo(f"Tracks      {', '.join(detail['tracks'])}")
    click.echo("")
    click.echo(f"Starter ({style}):")
    click.echo(detail["starters"][style].rstrip())


@tasks.command("coverage")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--top", default=8, show_default=True, help="Uncovered skills listed per track.")
def coverage_command(as_json, top):
    """The share of the corpus postings' required skills that at least one task evidences, per
    track and overall, and the most required skills no task evidences."""
    report = coverage.corpus_coverage(top)
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    rows = [*report["tracks"].items(), ("overall", report["overall"])]
    for track, row in rows:
        share = f"{row['share']:.0%}" if row["share"] is not None else "-"
        click.echo(f"{track:<24} {share:>5}  ({row['evidenced']} of {row['required']} required skills "
                   "in postings)")
        gaps = ", ".join(f"{g['skill']} ({g['postings']})" for g in row["uncovered"])
        if gaps:
            click.echo(f"{'':<24}        not yet evidenced: {gaps}")

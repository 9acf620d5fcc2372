"""`flask users ...`: administration from the command line."""
import click
from flask.cli import AppGroup

from . import service


@click.group(cls=AppGroup, help="Manage users.")
def users():
    pass


@users.command("create-admin")
@click.argument("email")
@click.password_option()
def create_admin(email, password):
    """Create a site administrator (or promote an existing user)."""
    user = service.create_admin(email, password)
    click.echo(f"admin {user.email} ready")

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


@users.command("reset-link")
@click.argument("email")
def reset_link(email):
    """Print a password-reset link for EMAIL (for servers that send no mail)."""
    from flask import current_app, url_for

    user = service.find_user(email)
    if user is None:
        raise click.ClickException(f"no account has the email {email}")
    links = service.ResetLinks.from_config(current_app.config)
    click.echo(url_for("accounts.reset_password", token=service.password_reset_token(user, links),
                       _external=True))

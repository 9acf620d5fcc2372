"""Session login for pages."""
from urllib.parse import urlsplit

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import login_user, logout_user

from . import service

bp = Blueprint("accounts", __name__)


def _safe_next(target: str | None) -> str:
    # Only same-site relative paths, so the login form cannot bounce users to another site.
    if target and target.startswith("/") and not target.startswith("//") and not urlsplit(target).netloc:
        return target
    return url_for("pages.index")


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "POST":
        try:
            user = service.authenticate(request.form.get("email", ""), request.form.get("password", ""))
        except service.AccountError as err:
            flash(err.message, "error")
            return render_template("login.html", email=request.form.get("email", "")), 401
        login_user(user)
        return redirect(_safe_next(request.args.get("next")))
    return render_template("login.html", email="")


@bp.route("/logout", methods=["POST"])
def logout():
    logout_user()
    return redirect(url_for("pages.index"))

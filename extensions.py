"""Flask extensions, created unbound and attached in create_app."""
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager
from flask_migrate import Migrate
from flask_smorest import Api
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    """Declarative base for every model (SQLAlchemy 2.x typed mappings)."""


db = SQLAlchemy(model_class=Base)
migrate = Migrate()
api = Api()
login_manager = LoginManager()
# Per-user limits are set on the views that need them (submissions, runs); nothing by default.
limiter = Limiter(key_func=get_remote_address, default_limits=[])

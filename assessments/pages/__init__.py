"""Pages: tasks, the task page with its editor, submissions, assessments and invitations (the
candidate's own pages, profile and roadmap among them, are candidates.pages).

Pages use the session (Flask-Login) and call the same services as the JSON API; they never
call the API over HTTP. A refused operation (a refusals.Refusal) is a 404 page when it
is NotFound, and otherwise a message in the page's form with its status
(web.errors.http_status). The task page's Run and Submit work without JavaScript (a plain POST,
then a redirect to the submission's page); with it they post the same form with fetch and get
JSON back.
"""
from .base import bp  # noqa: F401  (the blueprint the routes below register on)
# The routes, by area: each registers on `bp`.
from . import hiring, tasks  # noqa: E402,F401

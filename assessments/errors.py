"""The domain error of assessments, submissions and profiles; web/ maps it to HTTP."""


class AssessmentError(Exception):
    """A refused operation, with the HTTP status it maps to and the field it concerns."""

    def __init__(self, message: str, *, status: int = 422, field: str | None = None):
        super().__init__(message)
        self.message, self.status, self.field = message, status, field

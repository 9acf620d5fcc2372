"""The candidate's path: profiles as the candidate and recruiters see them (verified and claimed
skills), résumés, applications and ranking against jobs, roadmaps to a target, and one-page
exports, with their API and pages. Built on assessments (verified skills come from graded work),
jobdata and skillmap; nothing below imports this package."""


def register(app, api) -> None:
    from . import api_matching, api_profiles, api_roadmap, models, pages  # noqa: F401 (models: tables)

    for blp in (api_profiles.blp, api_matching.blp, api_roadmap.blp):
        api.register_blueprint(blp)
    app.register_blueprint(pages.bp)
